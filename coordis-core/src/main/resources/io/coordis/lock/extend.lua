-- Extend a lock only if it still holds our token (compare-and-pexpire).
--
-- KEYS[1]  lock key
-- ARGV[1]  token of the acquisition being extended
-- ARGV[2]  new ttl in milliseconds (> 0), counted from now
--
-- Returns {1}  extended
--         {0}  not ours any more: nothing was touched
local lock = KEYS[1]
local token, ttl = ARGV[1], ARGV[2]

if redis.call('GET', lock) ~= token then
  return {0}
end
redis.call('PEXPIRE', lock, ttl)
return {1}
