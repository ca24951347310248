-- Release a lock "not before" a time: if it still holds our token, leave it to expire in ttl ms
-- (compare-and-pexpire), with its holder details, and wake waiting clients so they read the new, possibly
-- shorter, expiry.
--
-- KEYS[1]  lock key
-- KEYS[2]  waiter marker ({name}:released as a key), set by busy acquire answers
-- KEYS[3]  optional, the holder details hash (io.coordis.lock.LockLayout): given the same PX as the lock key
-- ARGV[1]  token of the acquisition being released
-- ARGV[2]  time the key stays, in milliseconds (> 0), counted from now
-- ARGV[3]  channel on which waiting Coordis clients listen for releases
--
-- A waiter sleeps until the holder's TTL it was told when it found the lock busy; without the notice it would
-- sleep past the new expiry. The marker stays: waiters that find the lock still busy keep marking.
--
-- Returns {1}  the key now expires in ttl ms
--         {0}  not ours any more (expired, or held by someone else): nothing was touched
local lock, marker, holder_key = KEYS[1], KEYS[2], KEYS[3]
local token, ttl, channel = ARGV[1], ARGV[2], ARGV[3]

if redis.call('GET', lock) ~= token then
  return {0}
end
redis.call('PEXPIRE', lock, ttl)
if holder_key then
  redis.call('PEXPIRE', holder_key, ttl)
end
if redis.call('EXISTS', marker) == 1 then
  redis.call('PUBLISH', channel, 'expiring')
end
return {1}
