-- Take a token out of a semaphore: as a holder (release) and as a waiter (a caller that gave up), and wake the
-- first in line, whose turn it may now be (only it: the others could not be granted before it). When neither a
-- holder nor a waiter is left, the stored permit count goes too (KEYS[5] given; the sets and the details hash are
-- gone with their last member): the semaphore leaves nothing, and its next acquisition stores a count anew.
--
-- Keys and value formats: io.coordis.lock.SemaphoreLayout.
--
-- KEYS[1]  holders: a sorted set, token -> expiry (ms since the epoch, Redis's clock)
-- KEYS[2]  holder details: a hash, token -> 'permits fence since holder-id'
-- KEYS[3]  waiters: a sorted set, token -> arrival
-- KEYS[4]  waiters' lapse times: a sorted set, token -> lapse time
-- KEYS[5]  optional, permit count: a plain integer
-- ARGV[1]  token of the acquisition
-- ARGV[2]  the channel on which waiters listen for their turn; the message is the token of the first in line
--
-- Returns {1}  the token held permits until now: released
--         {0}  the token held none (expired, never granted, or released before); its place in line, if any, is gone
local holders, details, waiters, lapses = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local token, channel = ARGV[1], ARGV[2]

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expiry = tonumber(redis.call('ZSCORE', holders, token))
local removed = redis.call('ZREM', holders, token) + redis.call('ZREM', waiters, token)
redis.call('HDEL', details, token)
redis.call('ZREM', lapses, token)
if removed > 0 then
  local first = redis.call('ZRANGEBYSCORE', waiters, '-inf', '+inf', 'LIMIT', 0, 1)[1]
  if first then
    redis.call('PUBLISH', channel, first)
  end
end
if KEYS[5] and redis.call('EXISTS', holders, waiters) == 0 then
  redis.call('DEL', KEYS[5], details, lapses)
end
if expiry and expiry > now then
  return {1}
end
return {0}
