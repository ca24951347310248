-- Fencing numbers and election terms: functions that the scripts taking them include (io.coordis.internal.redis.LuaScript
-- puts them where a line "-- include fencing.lua" stands).
--
-- A name's numbers come from its counter ({name}:fence, an election's {name}:term), which expires a retention after
-- it last gave a number, so that names used once leave nothing for good. The counter never goes back: each take
-- raises it to the larger of itself and Redis's clock (milliseconds times 1,000), then adds the numbers taken. So a counter
-- that expired, or was removed, starts again above every number it handed out, unless the server's clock went
-- back meanwhile by more than the time since its last number (docs/safety.md, "Fencing numbers"). A counter of a
-- previous layout (small numbers, no expiry) is carried on from the clock the first time it is used.
-- Numbers stay below 2^53, exact in a Lua number, until the year 2255; written into keys or messages they go
-- through decimal(), because Lua's own conversion would print 1.7644e+15.

-- The first of n numbers taken from counter, which is then kept retention_ms (a string of digits) after this
-- take; an error reply (a table with err) when counter holds no number.
local function take_fences(counter, n, retention_ms)
  local stored = redis.pcall('GET', counter)
  if type(stored) == 'table' and stored.err then
    return stored
  end
  local value = tonumber(stored or '0')
  if not value then
    return redis.error_reply("WRONGTYPE key '" .. counter .. "' holds a string that is not a counter")
  end
  local t = redis.call('TIME')
  -- the clock in whole milliseconds (times 1,000): Redlock's nodes, asked within one millisecond, agree on it
  local top = math.max(value, tonumber(t[1]) * 1000000 + math.floor(tonumber(t[2]) / 1000) * 1000) + n
  redis.call('SET', counter, string.format('%d', top), 'PX', retention_ms)
  return top - n + 1
end

-- x (an integer held in a Lua number) in decimal digits.
local function decimal(x)
  return string.format('%d', x)
end
