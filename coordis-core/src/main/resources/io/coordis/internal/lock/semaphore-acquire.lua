-- Acquire permits of a semaphore, in arrival order across clients: grant when enough permits are free and the
-- caller is first in line (or nobody waits); else put the caller in line (or keep its place) and say how long
-- until the earliest holder expires. Expired holders and lapsed waiters are dropped first. Times are Redis's
-- TIME, so no client clock is trusted. A grant or a place in line gives every key but the fencing counter a PX
-- reaching MARGIN (5 s) past the last holder's expiry and the last waiter's lapse, so an idle semaphore leaves
-- nothing (its count too: the next acquisition stores ARGV[5] again); a try that gets nothing adds nothing (it only
-- drops what expired).
--
-- Keys and value formats: io.coordis.lock.SemaphoreLayout.
--
-- KEYS[1]  holders: a sorted set, token -> expiry (ms since the epoch, Redis's clock); the semaphore's name
-- KEYS[2]  holder details: a hash, token -> 'permits fence since holder-id' (since in ms since the epoch)
-- KEYS[3]  permit count: a plain integer; written from ARGV[5] when absent (by a grant or a place in line), never
--          overwritten here
-- KEYS[4]  fencing counter, as a lock's: kept ARGV[8] after its last number (fencing.lua)
-- KEYS[5]  waiters: a sorted set, token -> arrival (microseconds since the epoch, Redis's clock)
-- KEYS[6]  waiters' lapse times: a sorted set, token -> time its place lapses unless renewed (ms since the epoch)
-- ARGV[1]  token: unique per acquisition (it is also the caller's place in line)
-- ARGV[2]  permits wanted (> 0)
-- ARGV[3]  ttl in milliseconds (> 0)
-- ARGV[4]  holder id, e.g. user@host:pid
-- ARGV[5]  the permit count to store when none is stored yet
-- ARGV[6]  how long the caller's place in line lasts unless renewed, in ms; '0': a try that does not wait in line,
--          and adds nothing unless granted
-- ARGV[7]  the channel on which waiters listen for their turn; the message is the token of the first in line
-- ARGV[8]  how long the fencing counter is kept after it gave a number, milliseconds
--
-- Returns {1, fence}         granted; fence is the new fencing number
--         {0, pttl, free}    busy: pttl ms until the earliest holder expires (-1: no holder), free permits now
--         {-1, count}        more permits wanted than the semaphore has (count): never granted
-- Errors  WRONGTYPE key '<key>' holds a <type>  when the name holds another type of key
-- include fencing.lua

local holders, details, count_key, fence_key, waiters, lapses = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local token, wanted, ttl, holder = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local lapse, channel = tonumber(ARGV[6]), ARGV[7]
local MARGIN = 5000

local kind = redis.call('TYPE', holders)['ok']
if kind ~= 'zset' and kind ~= 'none' then
  return redis.error_reply("WRONGTYPE key '" .. holders .. "' holds a " .. kind)
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

for _, gone in ipairs(redis.call('ZRANGEBYSCORE', holders, '-inf', now)) do
  redis.call('ZREM', holders, gone)
  redis.call('HDEL', details, gone)
end
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', lapses, '-inf', now)) do
  redis.call('ZREM', waiters, gone)
  redis.call('ZREM', lapses, gone)
end

local count = tonumber(redis.call('GET', count_key))
local stored = count ~= nil
if not stored then
  count = tonumber(ARGV[5])
end

-- the count stored, and every key given a PX to MARGIN past the last holder's expiry and the last waiter's lapse
local function keep()
  local until_ms = now
  local last = redis.call('ZRANGE', holders, -1, -1, 'WITHSCORES')[2]
  if last then
    until_ms = math.max(until_ms, tonumber(last))
  end
  last = redis.call('ZRANGE', lapses, -1, -1, 'WITHSCORES')[2]
  if last then
    until_ms = math.max(until_ms, tonumber(last))
  end
  local px = until_ms - now + MARGIN
  if stored then
    redis.call('PEXPIRE', count_key, px)
  else
    redis.call('SET', count_key, count, 'PX', px)
  end
  for _, key in ipairs({holders, details, waiters, lapses}) do
    redis.call('PEXPIRE', key, px)
  end
end
if wanted > count then
  redis.call('ZREM', waiters, token)
  redis.call('ZREM', lapses, token)
  return {-1, count}
end

local used = 0
local held = redis.call('HGETALL', details)
for i = 2, #held, 2 do
  used = used + (tonumber(string.match(held[i], '^%d+')) or 0)
end
local free = count - used

local first = redis.call('ZRANGEBYSCORE', waiters, '-inf', '+inf', 'LIMIT', 0, 1)[1]
if (first == nil or first == token) and free >= wanted then
  redis.call('ZREM', waiters, token)
  redis.call('ZREM', lapses, token)
  local fence = take_fences(fence_key, 1, ARGV[8])
  if type(fence) == 'table' then
    return fence
  end
  redis.call('ZADD', holders, now + ttl, token)
  redis.call('HSET', details, token, wanted .. ' ' .. decimal(fence) .. ' ' .. now .. ' ' .. holder)
  -- the next in line may fit in what is left: wake it (the message is its token)
  if free > wanted then
    local next_in_line = redis.call('ZRANGEBYSCORE', waiters, '-inf', '+inf', 'LIMIT', 0, 1)[1]
    if next_in_line then
      redis.call('PUBLISH', channel, next_in_line)
    end
  end
  keep()
  return {1, fence}
end

if lapse > 0 then
  if not redis.call('ZSCORE', waiters, token) then
    -- as text: a Lua number would be written with 14 digits, rounding the microseconds away
    redis.call('ZADD', waiters, t[1] .. string.format('%06d', tonumber(t[2])), token)
  end
  redis.call('ZADD', lapses, now + lapse, token)
  keep()
end
local earliest = redis.call('ZRANGEBYSCORE', holders, '-inf', '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
local pttl = -1
if earliest[2] then
  pttl = tonumber(earliest[2]) - now
end
return {0, pttl, free}
