-- Extend a read hold of a read-write lock (renewal, or a release that leaves the hold to expire later): only
-- while the readers hold the lock key and the reader's own expiry has not passed. The lock key's PX then
-- follows the longest live reader, so a reader that died stops holding off writers within its TTL; the readers'
-- set and details hash follow it too.
--
-- Keys and field names: io.coordis.lock.LockLayout; the layout is read-acquire.lua's.
--
-- KEYS[1]  lock key ('coordis:readers' while readers hold it)
-- KEYS[2]  readers: sorted set of token -> expiry, Unix ms on Redis's clock; given the lock key's PX
-- KEYS[3]  readers' details hash; given the lock key's PX
-- ARGV[1]  token of the read hold being extended
-- ARGV[2]  new ttl in milliseconds (> 0), counted from now
--
-- Returns {1}  extended
--         {0}  not held any more (expired, or the lock was forced open): nothing was touched
local lock, readers, details = KEYS[1], KEYS[2], KEYS[3]
local token, ttl = ARGV[1], tonumber(ARGV[2])

if redis.call('GET', lock) ~= 'coordis:readers' then
  return {0}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expiry = tonumber(redis.call('ZSCORE', readers, token))
if not expiry or expiry <= now then
  return {0}
end
redis.call('ZADD', readers, now + ttl, token)
redis.call('HSET', details, token .. ':ttl', ttl)
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', readers, '-inf', now)) do
  redis.call('ZREM', readers, gone)
  redis.call('HDEL', details, gone .. ':holder', gone .. ':fence', gone .. ':since', gone .. ':ttl')
end
local last = tonumber(redis.call('ZRANGE', readers, -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIRE', lock, last - now)
redis.call('PEXPIRE', readers, last - now)
redis.call('PEXPIRE', details, last - now)
return {1}
