-- Decide one rate-limited request by GCRA (generic cell rate algorithm) on Redis's clock: the key holds the
-- limiter's theoretical arrival time (TAT), the time at which it would be back at its full burst. A request for n
-- permits is due once TAT + n * interval - burst * interval <= now; it is granted when due within the caller's
-- reserve (0: due now), and then TAT moves on by n intervals. Times are Redis's TIME, so no client clock counts.
-- The key expires at the TAT: from then on it would say no more than an absent key (an idle limiter). A denial
-- writes nothing. One key per decision, so it runs on Redis Cluster.
--
-- Layout: README, "Rate limiter", "How it is stored".
--
-- KEYS[1]  the limiter's key: the TAT, microseconds since the epoch by Redis's clock, a decimal number that may have
--          a fraction; absent means idle (TAT = now)
-- ARGV[1]  interval: microseconds between two permits at the steady rate (period / permits), may have a fraction
-- ARGV[2]  burst: the most permits granted at once (>= 1)
-- ARGV[3]  permits wanted (1 <= n <= burst)
-- ARGV[4]  reserve: how long the caller will wait for permits due later, microseconds; 0 grants only what is due now
--
-- Returns {1, due}  granted; due is how long until the permits are due, microseconds (0: now)
--         {0, due}  denied, nothing written: due is how long until they would be due, microseconds (> reserve)
-- Errors  WRONGTYPE key '<key>' holds a <type>  when the key holds anything but a time (another program's key),
--         which is left as it is
local key = KEYS[1]
local interval, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local wanted, reserve = tonumber(ARGV[3]), tonumber(ARGV[4])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local stored = redis.pcall('GET', key)
if type(stored) == 'table' then -- an error: name the key and its type rather than Redis's generic WRONGTYPE
  if stored.err and string.find(stored.err, 'WRONGTYPE', 1, true) then
    return redis.error_reply("WRONGTYPE key '" .. key .. "' holds a " .. redis.call('TYPE', key)['ok'])
  end
  return stored
end
local tat = tonumber(stored or '')
if stored and tat == nil then
  return redis.error_reply("WRONGTYPE key '" .. key .. "' holds a string that is no rate limiter's time")
end
if tat == nil or tat < now then
  tat = now
end

local after = tat + wanted * interval
local due = after - burst * interval - now
if due > reserve then
  return {0, math.ceil(due)}
end
redis.call('SET', key, string.format('%.17g', after), 'PX', math.ceil((after - now) / 1000))
if due < 0 then
  due = 0
end
return {1, math.ceil(due)}
