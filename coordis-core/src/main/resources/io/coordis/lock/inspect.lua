-- Read who holds a lock, without changing anything.
--
-- Keys and field names: io.coordis.lock.LockLayout.
--
-- KEYS[1]  lock key
-- KEYS[2]  holder details hash (derived)
--
-- Returns {false}                              not held
--         {token, pttl, holder details as a flat field/value list}
--         holder details are empty when the lock was taken by a foreign client (no matching hash)
-- Errors  WRONGTYPE key '<key>' holds a <type>  when the lock key is not a string
local lock, holder_key = KEYS[1], KEYS[2]

local kind = redis.call('TYPE', lock)['ok']
if kind == 'none' then
  return {false}
end
if kind ~= 'string' then
  return redis.error_reply("WRONGTYPE key '" .. lock .. "' holds a " .. kind)
end
local token = redis.call('GET', lock)
local details = {}
if redis.call('HGET', holder_key, 'token') == token then
  details = redis.call('HGETALL', holder_key)
end
return {token, redis.call('PTTL', lock), details}
