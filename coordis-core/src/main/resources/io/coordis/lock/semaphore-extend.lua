-- Extend a semaphore permit only while its token still holds it: an expired token is no longer ours, even before
-- an acquisition dropped it.
--
-- Keys and value formats: io.coordis.lock.SemaphoreLayout.
--
-- KEYS[1]  holders: a sorted set, token -> expiry (ms since the epoch, Redis's clock)
-- ARGV[1]  token of the acquisition being extended
-- ARGV[2]  new ttl in milliseconds (> 0), counted from now
--
-- Returns {1}  extended
--         {0}  not ours any more: nothing was touched
local holders = KEYS[1]
local token, ttl = ARGV[1], tonumber(ARGV[2])

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expiry = tonumber(redis.call('ZSCORE', holders, token))
if not expiry or expiry <= now then
  return {0}
end
redis.call('ZADD', holders, now + ttl, token)
return {1}
