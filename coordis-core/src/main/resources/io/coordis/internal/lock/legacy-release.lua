-- Release a legacy lock: DEL, but only if the key still holds the value this holder wrote and that
-- value has not expired. An expired value is left alone, as the SETNX pattern asks of holders: another
-- client may be taking it over right now (its key expiry removes it later).
--
-- KEYS[1]  lock key
-- ARGV[1]  the value this holder wrote last: its expiry in Unix ms, exactly as stored
--
-- Returns {1}  released
--         {0}  not ours any more (another value, another type, no key) or our expiry has passed:
--              nothing was touched
local lock = KEYS[1]
local ours = ARGV[1]

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

if redis.call('TYPE', lock)['ok'] ~= 'string' or redis.call('GET', lock) ~= ours or tonumber(ours) < now then
  return {0}
end
redis.call('DEL', lock)
return {1}
