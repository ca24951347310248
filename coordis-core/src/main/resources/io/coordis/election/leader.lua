-- Read who leads an election, for leader() and observers. Read-only.
--
-- Keys and field names: io.coordis.election.ElectionLayout.
--
-- KEYS[1]  leader key
-- KEYS[2]  leadership details hash (derived, same slot)
--
-- Returns {false}                       nobody leads
--         {id, pttl, term or false}     the leader's id; its remaining TTL in ms as PTTL answers it (-1: no
--                                       expiry); its term, false when the key was not written by Coordis
-- Errors   WRONGTYPE key '<key>' holds a <type>  when the leader key is not a string
local leader_key, details_key = KEYS[1], KEYS[2]

local kind = redis.call('TYPE', leader_key)['ok']
if kind == 'none' then
  return {false}
end
if kind ~= 'string' then
  return redis.error_reply("WRONGTYPE key '" .. leader_key .. "' holds a " .. kind)
end
local id = redis.call('GET', leader_key)
local term = false
if redis.call('HGET', details_key, 'id') == id then
  term = tonumber(redis.call('HGET', details_key, 'term'))
end
return {id, redis.call('PTTL', leader_key), term}
