-- A deliberately broken limiter for tests, the negative control of SkewedClientsIT: it scores grants by the
-- client's clock, as limiters that keep a sliding window of grants do. Grants older than a period by the caller's
-- clock go back to the pool, so a caller whose clock runs ahead gives back everyone's grants early.
--
-- KEYS[1]  permits available: an integer, absent means ARGV[3]
-- KEYS[2]  grants: a sorted set, unique id -> the client's time of the grant (ms)
-- ARGV[1]  the client's time, ms since the epoch
-- ARGV[2]  period, ms
-- ARGV[3]  permits per period
-- ARGV[4]  a unique id for this request
--
-- Returns 1 granted, 0 denied
local now, period = tonumber(ARGV[1]), tonumber(ARGV[2])
local available = tonumber(redis.call('GET', KEYS[1]) or ARGV[3])
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - period)
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[2], id)
end
available = math.min(available + #expired, tonumber(ARGV[3]))
if available < 1 then
  redis.call('SET', KEYS[1], available)
  return 0
end
redis.call('SET', KEYS[1], available - 1)
redis.call('ZADD', KEYS[2], now, ARGV[4])
return 1
