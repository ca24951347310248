-- Extend a semaphore permit only while its token still holds it: an expired token is no longer ours, even before
-- an acquisition dropped it. The semaphore's keys (KEYS[2..5] given) then expire MARGIN past the last holder's
-- expiry and the last waiter's lapse, as semaphore-acquire.lua leaves them.
--
-- Keys and value formats: io.coordis.lock.SemaphoreLayout.
--
-- KEYS[1]  holders: a sorted set, token -> expiry (ms since the epoch, Redis's clock)
-- KEYS[2]  optional, holder details: a hash, token -> 'permits fence since holder-id'
-- KEYS[3]  with KEYS[2], permit count: a plain integer
-- KEYS[4]  with KEYS[2], waiters: a sorted set, token -> arrival
-- KEYS[5]  with KEYS[2], waiters' lapse times: a sorted set, token -> lapse time (ms since the epoch)
-- ARGV[1]  token of the acquisition being extended
-- ARGV[2]  new ttl in milliseconds (> 0), counted from now
--
-- Returns {1}  extended
--         {0}  not ours any more: nothing was touched
local holders = KEYS[1]
local token, ttl = ARGV[1], tonumber(ARGV[2])
local MARGIN = 5000

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expiry = tonumber(redis.call('ZSCORE', holders, token))
if not expiry or expiry <= now then
  return {0}
end
redis.call('ZADD', holders, now + ttl, token)
if KEYS[2] then
  local until_ms = tonumber(redis.call('ZRANGE', holders, -1, -1, 'WITHSCORES')[2])
  local last = redis.call('ZRANGE', KEYS[5], -1, -1, 'WITHSCORES')[2]
  if last then
    until_ms = math.max(until_ms, tonumber(last))
  end
  for _, key in ipairs({holders, KEYS[2], KEYS[3], KEYS[4], KEYS[5]}) do
    redis.call('PEXPIRE', key, until_ms - now + MARGIN)
  end
end
return {1}
