-- Extend a legacy lock only if it still holds the value this holder wrote and that value has not
-- expired (compare-and-set of the expiry).
--
-- KEYS[1]  lock key
-- ARGV[1]  the value this holder wrote last: its expiry in Unix ms, exactly as stored
-- ARGV[2]  new ttl in milliseconds (> 0); the value written is Redis's TIME in Unix ms + ttl + 1
-- ARGV[3]  key expiry margin in milliseconds (>= 0), as in legacy-acquire.lua
--
-- Returns {1, value}  extended; value is the new expiry written (Unix ms, as a decimal string)
--         {0}         not ours any more (another value, another type, no key) or our expiry has
--                     passed (another client may be taking it over): nothing was touched
local lock = KEYS[1]
local ours, ttl, margin = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

if redis.call('TYPE', lock)['ok'] ~= 'string' or redis.call('GET', lock) ~= ours or tonumber(ours) < now then
  return {0}
end
local value = string.format('%d', now + ttl + 1)
redis.call('SET', lock, value, 'PX', string.format('%d', ttl + 1 + margin))
return {1, value}
