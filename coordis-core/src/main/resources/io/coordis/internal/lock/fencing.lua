-- Fencing numbers and election terms: functions that the scripts taking them include (io.coordis.internal.redis.LuaScript
-- puts them where a line "-- include fencing.lua" stands).
--
-- A name's numbers come from its counter ({name}:fence, an election's {name}:term), which expires a retention after
-- it last gave a number, so that names used once leave nothing for good. A counter that is gone (expired, removed,
-- lost with a restart) starts again from Redis's clock, milliseconds times 1,000, which lies above every number it
-- handed out as long as it never took more than a thousand numbers a millisecond on average since it started, and
-- the server's clock did not go back meanwhile by more than the time since its last number (docs/safety.md,
-- "Fencing numbers"). A counter of a previous layout (small numbers, no expiry) goes on counting, and expires.
-- Numbers stay below 2^53, exact in a Lua number, until the year 2255; written into keys or messages they go
-- through decimal(), because Lua's own conversion would print 1.7644e+15.

-- The first of n numbers taken from counter, which is then kept retention_ms (a string of digits) after this
-- take; an error reply (a table with err) when counter holds no integer.
local function take_fences(counter, n, retention_ms)
  local top = redis.pcall('INCRBY', counter, n)
  if type(top) == 'table' and top.err then
    return top
  end
  if top == n then
    -- a new counter (or one at 0): it starts from the clock
    local t = redis.call('TIME')
    top = tonumber(t[1]) * 1000000 + math.floor(tonumber(t[2]) / 1000) * 1000 + n
    redis.call('SET', counter, string.format('%d', top), 'PX', retention_ms)
  else
    redis.call('PEXPIRE', counter, retention_ms)
  end
  return top - n + 1
end

-- x (an integer held in a Lua number) in decimal digits.
local function decimal(x)
  return string.format('%d', x)
end
