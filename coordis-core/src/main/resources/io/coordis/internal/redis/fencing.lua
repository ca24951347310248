-- Fencing numbers and election terms: functions that the scripts taking them include (io.coordis.internal.redis.LuaScript).
--
-- They come from a counter shared by every name in one Redis Cluster hash slot, <prefix>{<n>}:coordis:fence
-- (io.coordis.internal.Keys.fenceCounter), so that a few thousand keys at most serve any number of names. The counter
-- never goes back: each take raises it to the larger of itself and Redis's clock in microseconds, then adds the
-- numbers taken. So a name's numbers rise because its slot's counter rises, and a counter that was removed (by
-- hand, or lost with data that was never persisted) starts again above every number it handed out, as long as
-- the server's clock has not gone back by more than the time since (docs/safety.md, "Fencing numbers").
-- Numbers stay below 2^53, exact in a Lua number, until the year 2255; written into keys or messages they go
-- through decimal(), because Lua's own conversion would print 1.7644e+15.

-- The first of n numbers taken from counter; an error reply (a table with err) when counter holds no number.
local function take_fences(counter, n)
  local stored = redis.pcall('GET', counter)
  if type(stored) == 'table' and stored.err then
    return stored
  end
  local value = tonumber(stored or '0')
  if not value then
    return redis.error_reply("WRONGTYPE key '" .. counter .. "' holds a string that is not a counter")
  end
  local t = redis.call('TIME')
  local top = math.max(value, tonumber(t[1]) * 1000000 + tonumber(t[2])) + n
  redis.call('SET', counter, string.format('%d', top))
  return top - n + 1
end

-- x (an integer held in a Lua number) in decimal digits.
local function decimal(x)
  return string.format('%d', x)
end
