-- Hand a held lock to the next waiter in the same client, or release it when others must get their turn.
-- One call instead of release + notification + acquire: a new token, a new fencing number, new holder
-- details and a fresh TTL, exactly what release.lua followed by acquire.lua would leave.
--
-- Keys and field names: io.coordis.lock.LockLayout.
--
-- KEYS[1]  lock key
-- KEYS[2]  fencing counter (see acquire.lua)
-- KEYS[3]  holder details hash (see acquire.lua)
-- KEYS[4]  waiter marker ({name}:released as a key), set by busy acquire answers of other clients
-- ARGV[1]  token of the acquisition being released
-- ARGV[2]  token for the next holder: unique per acquisition
-- ARGV[3]  ttl in milliseconds (> 0)
-- ARGV[4]  holder id
-- ARGV[5]  hand-off time, milliseconds since the epoch (for operators)
-- ARGV[6]  '1' when others marked that they wait and the caller yields to them: release and publish instead
-- ARGV[7]  channel on which waiting clients listen for releases
--
-- Returns {1, fence}  handed over; fence is the new fencing number
--         {0}         not ours any more: nothing was touched
--         {2}         released (ARGV[6] and the marker): waiting clients were notified
-- Errors   any error of the counter or details keys, after which the lock is released
local lock, fence_key, holder_key, marker = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local old, token, ttl, holder, now, yield, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]

if redis.call('GET', lock) ~= old then
  return {0}
end
if yield == '1' and redis.call('DEL', marker) == 1 then
  redis.call('DEL', lock)
  redis.call('PUBLISH', channel, 'released')
  return {2}
end
redis.call('SET', lock, token, 'PX', ttl)
local fence = redis.pcall('INCR', fence_key)
if type(fence) == 'table' and fence.err then
  redis.call('DEL', lock)
  return fence
end
local written = redis.pcall('HSET', holder_key, 'token', token, 'holder', holder, 'fence', fence, 'since', now,
  'ttl', ttl)
if type(written) == 'table' and written.err then
  redis.call('DEL', lock)
  return written
end
return {1, fence}
