-- Take a read hold of a read-write lock: many readers at once, never beside a writer. While readers hold, the
-- lock key holds the fixed value 'coordis:readers' (so every SET NX client, and every write hold, which is the
-- plain lock acquire.lua takes, finds it busy) with a PX that covers the longest reader; each reader is a member
-- of a sorted set scored by its expiry, and the set and the readers' details carry the lock key's PX, so nothing of
-- the read holds outlives them. A writer that found readers marks that it waits (acquire.lua, the holder details'
-- 'waiting-writer' field): new readers answer busy until that mark lapses or a writer is granted.
--
-- Keys and field names: io.coordis.lock.LockLayout.
--
-- KEYS[1]  lock key: the resource name exactly as given (plus the caller's explicit prefix, if any)
-- KEYS[2]  fencing counter, shared by readers and writers: kept ARGV[6] after its last number (fencing.lua)
-- KEYS[3]  the write holds' holder details hash; only its 'waiting-writer' field is read: Unix ms (Redis's
--          clock) until which a writer waits for the readers to leave
-- KEYS[4]  readers: sorted set of token -> expiry, Unix ms on Redis's clock; PX as the lock key's
-- KEYS[5]  readers' details: hash of '<token>:holder', '<token>:fence', '<token>:since', '<token>:ttl'; PX as
--          the lock key's
-- KEYS[6]  waiter marker ({name}:released as a key), set by busy answers to a caller that waits (ARGV[5]) so
--          that releases publish
-- ARGV[1]  token: unique per acquisition
-- ARGV[2]  ttl in milliseconds (> 0)
-- ARGV[3]  holder id, e.g. user@host:pid
-- ARGV[4]  acquisition time, milliseconds since the epoch (for operators; not used for safety)
-- ARGV[5]  optional, '1' when the caller waits for the lock if it is busy: only then does a busy answer set the
--          waiter marker; otherwise (absent, '' or '0': a try) a busy answer writes nothing
-- ARGV[6]  how long the fencing counter is kept after it gave a number, milliseconds
--
-- Returns {1, fence}   held; fence is the new fencing number
--         {0, pttl}    busy: a writer (or another client) holds the key for pttl ms (-1: no expiry), or a writer
--                      waits for pttl ms more at most
-- Errors  WRONGTYPE key '<key>' holds a <type>  when the lock key is not a string
-- include fencing.lua

local lock, fence_key, holder_key, readers, details, marker = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local token, ttl, holder, since = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local READERS = 'coordis:readers'
local waits = ARGV[5] == '1'

local kind = redis.call('TYPE', lock)['ok']
if kind ~= 'string' and kind ~= 'none' then
  return redis.error_reply("WRONGTYPE key '" .. lock .. "' holds a " .. kind)
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local function busy(pttl)
  if waits then
    -- A waiter wakes by itself when pttl runs out at the latest; the margin covers its retry.
    redis.call('SET', marker, '1', 'PX', math.max(pttl, 0) + 5000)
  end
  return {0, pttl}
end

local value = redis.call('GET', lock)
if value and value ~= READERS then
  return busy(redis.call('PTTL', lock))
end
local waiting = tonumber(redis.call('HGET', holder_key, 'waiting-writer') or '0') or 0
if waiting > now then
  return busy(waiting - now)
end

if value then
  -- readers whose TTL ran out without a release (their process died or stalled) leave now
  for _, gone in ipairs(redis.call('ZRANGEBYSCORE', readers, '-inf', now)) do
    redis.call('ZREM', readers, gone)
    redis.call('HDEL', details, gone .. ':holder', gone .. ':fence', gone .. ':since', gone .. ':ttl')
  end
else
  -- no live reader can remain once the key is gone (its PX covers the longest): what is left is stale
  redis.call('DEL', readers, details)
end

local fence = take_fences(fence_key, 1, ARGV[6])
if type(fence) == 'table' then
  return fence
end
redis.call('ZADD', readers, now + ttl, token)
redis.call('HSET', details, token .. ':holder', holder, token .. ':fence', decimal(fence), token .. ':since', since,
  token .. ':ttl', ttl)
local last = tonumber(redis.call('ZRANGE', readers, -1, -1, 'WITHSCORES')[2])
redis.call('SET', lock, READERS, 'PX', last - now)
redis.call('PEXPIRE', readers, last - now)
redis.call('PEXPIRE', details, last - now)
return {1, fence}
