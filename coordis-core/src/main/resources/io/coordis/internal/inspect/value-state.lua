-- Read one string key's value and TTL, with the server's clock, in one atomic step and without changing anything
-- (for ls and inspect: a rate limiter's theoretical arrival time, a count-down latch's count).
--
-- Keys and value formats: io.coordis.internal.ratelimit.RateLayout, io.coordis.internal.latch.LatchLayout.
--
-- KEYS[1]  the key
--
-- Returns {type, value or false, strlen, pttl, seconds, microseconds}
--         type     TYPE of KEYS[1]; for anything but 'string' and 'none' nothing else is read: {type}
--         value    the first 64 bytes of the value (a time or a count is shorter); false when there is no key
--         strlen   the value's full length
--         pttl     as PTTL answers it (-2: no key, -1: no expiry)
--         seconds, microseconds  the server's clock, as TIME answers it
local key = KEYS[1]

local kind = redis.call('TYPE', key)['ok']
if kind ~= 'string' and kind ~= 'none' then
  return {kind}
end
local value = false
if kind == 'string' then
  value = redis.call('GETRANGE', key, 0, 63)
end
local t = redis.call('TIME')
return {kind, value, redis.call('STRLEN', key), redis.call('PTTL', key), t[1], t[2]}
