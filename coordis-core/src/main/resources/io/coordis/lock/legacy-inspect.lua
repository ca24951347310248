-- Read who holds a legacy lock, without changing anything.
--
-- KEYS[1]  lock key
--
-- Values read as in legacy-acquire.lua: Unix seconds below 1e11 (expiring at the end of that second),
-- Unix milliseconds otherwise; anything else is unreadable.
--
-- Returns {false}        not held: no key, or its stored expiry has passed
--         {value, left}  held; left = ms until the stored expiry passes, or, for an unreadable value,
--                        the key's PTTL in ms (-1: no expiry)
-- Errors  WRONGTYPE key '<key>' holds a <type>  when the lock key is not a string
local lock = KEYS[1]

local function expiry_ms(value)
  if not value or not string.match(value, '^%d+%.?%d*$') then
    return nil
  end
  local n = tonumber(value)
  if n < 1e11 then
    return (math.floor(n) + 1) * 1000 - 1
  end
  return n
end

local kind = redis.call('TYPE', lock)['ok']
if kind == 'none' then
  return {false}
end
if kind ~= 'string' then
  return redis.error_reply("WRONGTYPE key '" .. lock .. "' holds a " .. kind)
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local value = redis.call('GET', lock)
local expiry = expiry_ms(value)
if not expiry then
  return {value, redis.call('PTTL', lock)}
end
if expiry < now then
  return {false}
end
return {value, math.min(expiry - now, 1e15)}
