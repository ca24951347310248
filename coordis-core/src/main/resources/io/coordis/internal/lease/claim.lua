-- Read who holds a claim, without changing anything: a string key whose value names the holder (a lock's token,
-- a leader's id), its remaining TTL, and the hash of details Coordis keeps beside it, which describe the claim
-- only while their identity field (ARGV[1]) equals the key's value.
--
-- Keys and field names: io.coordis.lock.LockLayout (identity field 'token') and io.coordis.election.ElectionLayout
-- (identity field 'id').
--
-- KEYS[1]  the claim's key (a lock's or an election's name)
-- KEYS[2]  its details hash (derived, same slot)
-- ARGV[1]  the details' identity field
-- ARGV[2..]  the details' fields to return
--
-- Returns {false}                     nobody holds it
--         {value, pttl, details}      the key's value; its remaining TTL in ms as PTTL answers it (-1: no expiry);
--                                     details: a flat field/value list of those of ARGV[2..] the hash holds,
--                                     empty when the hash does not describe this value (a foreign client's claim)
-- Errors  WRONGTYPE key '<key>' holds a <type>  when the claim's key is not a string
local key, details_key, identity = KEYS[1], KEYS[2], ARGV[1]

local kind = redis.call('TYPE', key)['ok']
if kind == 'none' then
  return {false}
end
if kind ~= 'string' then
  return redis.error_reply("WRONGTYPE key '" .. key .. "' holds a " .. kind)
end
local value = redis.call('GET', key)
local details = {}
if redis.call('HGET', details_key, identity) == value then
  for i = 2, #ARGV do
    local field = redis.call('HGET', details_key, ARGV[i])
    if field then
      table.insert(details, ARGV[i])
      table.insert(details, field)
    end
  end
end
return {value, redis.call('PTTL', key), details}
