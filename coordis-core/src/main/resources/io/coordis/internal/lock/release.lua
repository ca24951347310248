-- Release a lock only if it still holds our token (compare-and-delete), with its holder details, and wake waiting
-- clients.
--
-- KEYS[1]  lock key
-- KEYS[2]  waiter marker ({name}:released as a key), set by busy acquire answers; without it, always publish
-- KEYS[3]  optional, with KEYS[2]: the holder details hash (io.coordis.lock.LockLayout), deleted with the lock
-- ARGV[1]  token of the acquisition being released
-- ARGV[2]  channel on which waiting Coordis clients listen for releases
--
-- The marker is deleted with the lock in one DEL: a second deleted key means somebody may be waiting, and
-- only then is the release published (a waiter that tries again and finds the lock busy sets it anew).
--
-- Returns {1}  released
--         {0}  not ours any more (expired, or held by someone else): nothing was touched
local lock, marker, holder_key = KEYS[1], KEYS[2], KEYS[3]
local token, channel = ARGV[1], ARGV[2]

if redis.call('GET', lock) ~= token then
  return {0}
end
if holder_key then
  redis.call('DEL', holder_key)
end
if not marker then
  redis.call('DEL', lock)
  redis.call('PUBLISH', channel, 'released')
elseif redis.call('DEL', lock, marker) > 1 then
  redis.call('PUBLISH', channel, 'released')
end
return {1}
