-- Read a semaphore in one atomic step, without changing anything (for ls and inspect). Expired holders and lapsed
-- waiters are returned as stored; the reader compares their times with now.
--
-- Keys and value formats: io.coordis.lock.SemaphoreLayout.
--
-- KEYS[1]  holders (sorted set: token -> expiry ms)       KEYS[2]  holder details (hash: token -> details)
-- KEYS[3]  permit count (string)                          KEYS[4]  fencing counter (string)
-- KEYS[5]  waiters (sorted set: token -> arrival µs)       KEYS[6]  waiters' lapse times (sorted set: token -> ms)
--
-- Returns {type, permits, fence, holders, details, waiters, lapses, now}
--         type     TYPE of KEYS[1]; for anything but 'zset' and 'none' nothing else is read
--         permits  the stored permit count; false when none is stored
--         fence    the fencing counter; false when absent
--         holders, waiters, lapses  flat member/score lists, lowest score first
--         details  flat token/details list of KEYS[2]
--         now      the server's clock, Unix ms
local holders, details, permits, fence, waiters, lapses = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]

local kind = redis.call('TYPE', holders)['ok']
if kind ~= 'zset' and kind ~= 'none' then
  return {kind}
end
local function scored(k)
  if redis.call('TYPE', k)['ok'] ~= 'zset' then
    return {}
  end
  return redis.call('ZRANGEBYSCORE', k, '-inf', '+inf', 'WITHSCORES')
end
local function text(k)
  if redis.call('TYPE', k)['ok'] ~= 'string' then
    return false
  end
  return redis.call('GET', k)
end
local held = {}
if redis.call('TYPE', details)['ok'] == 'hash' then
  held = redis.call('HGETALL', details)
end
local t = redis.call('TIME')
return {kind, text(permits), text(fence), scored(holders), held, scored(waiters), scored(lapses),
  tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)}
