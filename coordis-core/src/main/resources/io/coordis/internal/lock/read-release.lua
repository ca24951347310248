-- Release a read hold of a read-write lock. The last reader to leave deletes the lock key and the readers'
-- keys, and wakes waiting clients (only when a busy answer marked that somebody waits, as release.lua does);
-- otherwise the lock key's PX, and the readers' set's and details', follow the longest remaining live reader. A
-- writer's 'waiting-writer' mark (in the holder details) stays, to lapse by its own PX: it keeps new readers off
-- until the woken writer has tried.
--
-- Keys and field names: io.coordis.lock.LockLayout; the layout is read-acquire.lua's.
--
-- KEYS[1]  lock key ('coordis:readers' while readers hold it)
-- KEYS[2]  readers: sorted set of token -> expiry, Unix ms on Redis's clock; given the lock key's PX
-- KEYS[3]  readers' details hash; given the lock key's PX
-- KEYS[4]  waiter marker ({name}:released as a key)
-- ARGV[1]  token of the read hold being released
-- ARGV[2]  channel on which waiting Coordis clients listen for releases
--
-- Returns {1}  released
--         {0}  not held any more (expired, or the lock was forced open); its entry, if any, is removed
local lock, readers, details, marker = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local token, channel = ARGV[1], ARGV[2]

if redis.call('GET', lock) ~= 'coordis:readers' then
  return {0}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expiry = tonumber(redis.call('ZSCORE', readers, token))
redis.call('ZREM', readers, token)
redis.call('HDEL', details, token .. ':holder', token .. ':fence', token .. ':since', token .. ':ttl')
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', readers, '-inf', now)) do
  redis.call('ZREM', readers, gone)
  redis.call('HDEL', details, gone .. ':holder', gone .. ':fence', gone .. ':since', gone .. ':ttl')
end
local last = redis.call('ZRANGE', readers, -1, -1, 'WITHSCORES')[2]
if last then
  redis.call('PEXPIRE', lock, tonumber(last) - now)
  redis.call('PEXPIRE', readers, tonumber(last) - now)
  redis.call('PEXPIRE', details, tonumber(last) - now)
else
  redis.call('DEL', lock, readers, details)
  if redis.call('DEL', marker) == 1 then
    redis.call('PUBLISH', channel, 'released')
  end
end
if expiry and expiry > now then
  return {1}
end
return {0}
