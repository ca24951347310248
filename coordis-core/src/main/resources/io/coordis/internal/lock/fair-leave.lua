-- Take a waiter's place out of a fair lock's line (fair-acquire.lua), for a caller that gave up; when the lock is
-- free, announce a release, so that the next in line tries now rather than at its next renewal.
--
-- Keys and value formats: io.coordis.lock.LockLayout.
--
-- KEYS[1]  line: a sorted set, place -> arrival
-- KEYS[2]  line lapses: a sorted set, place -> lapse time
-- KEYS[3]  lock key
-- ARGV[1]  the place to take out
-- ARGV[2]  the lock's release channel
--
-- Returns 1 when the place was in line, else 0 (lapsed or granted already): nothing else was touched
local line, lapses, lock = KEYS[1], KEYS[2], KEYS[3]
local place, channel = ARGV[1], ARGV[2]

local removed = redis.call('ZREM', line, place)
redis.call('ZREM', lapses, place)
if removed == 1 and redis.call('EXISTS', lock) == 0 and redis.call('ZRANGE', line, 0, 0)[1] then
  redis.call('PUBLISH', channel, 'released')
end
return removed
