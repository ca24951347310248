-- Extend a lock only if it still holds our token (compare-and-pexpire), with its holder details, which live and die
-- with the hold; or, noting a lease handed on inside the client that holds it (ARGV[3..4] given), extend it and
-- record the lease's fencing number in the holder details.
--
-- KEYS[1]  lock key
-- KEYS[2]  optional, the holder details hash (io.coordis.lock.LockLayout): given the same PX as the lock key
-- KEYS[3]  with ARGV[3], the waiter marker ({name}:released as a key, set by busy answers to other clients)
-- ARGV[1]  token of the acquisition being extended
-- ARGV[2]  new ttl in milliseconds (> 0), counted from now
-- ARGV[3]  optional, with KEYS[2..3]: the fencing number of the lease now holding the lock under that token
-- ARGV[4]  with ARGV[3], when that lease got the lock, milliseconds since the epoch (for operators)
--
-- Returns {1}          extended
--         {1, marked}  noted and extended; marked is 1 when another client marked that it waits, else 0
--         {0}          not ours any more: nothing was touched
local lock, holder_key = KEYS[1], KEYS[2]
local token, ttl = ARGV[1], ARGV[2]

if redis.call('GET', lock) ~= token then
  return {0}
end
redis.call('PEXPIRE', lock, ttl)
if not holder_key then
  return {1}
end
redis.call('PEXPIRE', holder_key, ttl)
if not ARGV[3] then
  return {1}
end
redis.call('HSET', holder_key, 'fence', ARGV[3], 'since', ARGV[4], 'ttl', ttl)
return {1, redis.call('EXISTS', KEYS[3])}
