-- Raise a lock's fencing counter to at least a given value (Redlock's write-back of the largest
-- number a majority handed out, so that every later majority sees it), and record that number as the
-- holder's on a node where the acquisition's token holds the lock (its own number there was lower).
--
-- KEYS[1]  fencing counter (derived from the lock name; fencing.lua)
-- KEYS[2]  the lock key
-- KEYS[3]  its holder details hash (io.coordis.lock.LockLayout)
-- ARGV[1]  the value the counter must reach, a positive integer
-- ARGV[2]  how long the counter is kept after it is raised, milliseconds
-- ARGV[3]  the token of the acquisition granted that number
--
-- Returns {counter}  the counter after the call (>= ARGV[1])
local fence_key, target = KEYS[1], tonumber(ARGV[1])

local current = tonumber(redis.call('GET', fence_key) or '0')
if current < target then
  redis.call('SET', fence_key, ARGV[1], 'PX', ARGV[2]) -- as given: a Lua number would read 1.7644e+15
  current = target
end
if redis.call('GET', KEYS[2]) == ARGV[3] and redis.call('HGET', KEYS[3], 'token') == ARGV[3] then
  redis.call('HSET', KEYS[3], 'fence', ARGV[1])
end
return {current}
