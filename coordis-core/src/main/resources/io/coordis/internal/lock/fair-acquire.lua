-- Acquire a fair lock: the lock as acquire.lua writes it (SET <lock> <token> NX PX <ttl>, a fencing number, holder
-- details), granted only to the first in the lock's line (or to anyone when nobody waits); a caller that waits
-- and is not granted takes a place at the end of the line, or keeps and renews its place. The line is a
-- semaphore's (semaphore-acquire.lua): arrival order in one sorted set, lapse times in another; places whose lapse
-- time passed are dropped first. Times are Redis's TIME. A place gives both line keys a PX reaching MARGIN (5 s)
-- past the last lapse, so an idle line leaves nothing; a try that does not wait adds nothing to the line.
-- Releases and renewals are the plain lock's (release.lua, extend.lua): a release publishes on the release channel
-- while the waiter marker says somebody waits, which a busy answer to a waiter sets.
--
-- Keys and value formats: io.coordis.lock.LockLayout.
--
-- KEYS[1]  lock key, as acquire.lua's
-- KEYS[2]  fencing counter, as acquire.lua's; kept ARGV[7] after its last number (fencing.lua)
-- KEYS[3]  holder details hash, as acquire.lua's (token, holder, fence, since, ttl), with the lock's PX
-- KEYS[4]  waiter marker, as acquire.lua's ({name}:released as a key)
-- KEYS[5]  line: a sorted set, place -> arrival (microseconds since the epoch, Redis's clock)
-- KEYS[6]  line lapses: a sorted set, place -> time the place lapses unless renewed (ms since the epoch)
-- ARGV[1]  token: unique per try (the lock's value when granted)
-- ARGV[2]  ttl in milliseconds (> 0)
-- ARGV[3]  holder id, e.g. user@host:pid
-- ARGV[4]  acquisition time, milliseconds since the epoch (for operators; not used for safety)
-- ARGV[5]  the caller's place in line: unique per waiting acquisition, the same on each of its tries; '' for a
--          try that does not wait (granted only when nobody waits, and adds nothing)
-- ARGV[6]  how long the place lasts unless renewed, in ms (> 0 with a place)
-- ARGV[7]  how long the fencing counter is kept after it gave a number, milliseconds
--
-- Returns {1, fence}                  acquired; fence is the new fencing number; the place left the line
--         {0, pttl, holder or false}  busy: pttl as PTTL answers it for the lock key (-2: no holder, but others
--                                     are first in line; then at most the first place's time to lapse)
-- Errors  WRONGTYPE key '<key>' holds a <type>  when the lock key is not a string, or a line key not a sorted set
-- include fencing.lua

local lock, fence_key, holder_key, marker, line, lapses = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local token, ttl, holder, since = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local place, lapse = ARGV[5], tonumber(ARGV[6])
local MARGIN = 5000

local kind = redis.call('TYPE', lock)['ok']
if kind ~= 'string' and kind ~= 'none' then
  return redis.error_reply("WRONGTYPE key '" .. lock .. "' holds a " .. kind)
end
for _, k in ipairs({line, lapses}) do
  local held = redis.call('TYPE', k)['ok']
  if held ~= 'zset' and held ~= 'none' then
    return redis.error_reply("WRONGTYPE key '" .. k .. "' holds a " .. held)
  end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

for _, gone in ipairs(redis.call('ZRANGEBYSCORE', lapses, '-inf', now)) do
  redis.call('ZREM', line, gone)
  redis.call('ZREM', lapses, gone)
end

-- both line keys given a PX to MARGIN past the last lapse (a line left empty is gone already)
local function keep()
  local last = redis.call('ZRANGE', lapses, -1, -1, 'WITHSCORES')[2]
  if last then
    local px = math.max(tonumber(last) - now, 0) + MARGIN
    redis.call('PEXPIRE', line, px)
    redis.call('PEXPIRE', lapses, px)
  end
end

local first = redis.call('ZRANGEBYSCORE', line, '-inf', '+inf', 'LIMIT', 0, 1)[1]
if (first == nil or first == place) and redis.call('SET', lock, token, 'NX', 'PX', ttl) then
  if place ~= '' then
    redis.call('ZREM', line, place)
    redis.call('ZREM', lapses, place)
    keep()
  end
  local fence = take_fences(fence_key, 1, ARGV[7])
  if type(fence) == 'table' and fence.err then
    redis.call('DEL', lock)
    return fence
  end
  redis.call('HSET', holder_key, 'token', token, 'holder', holder, 'fence', decimal(fence), 'since', since,
    'ttl', ttl, 'waiting-writer', 0)
  redis.call('PEXPIRE', holder_key, ttl)
  return {1, fence}
end

local pttl = redis.call('PTTL', lock)
local who = false
if pttl ~= -2 then
  local current = redis.call('GET', lock)
  if redis.call('HGET', holder_key, 'token') == current then
    who = redis.call('HGET', holder_key, 'holder')
  end
end
if place ~= '' then
  if not redis.call('ZSCORE', line, place) then
    -- as text: a Lua number would be written with 14 digits, rounding the microseconds away
    redis.call('ZADD', line, t[1] .. string.format('%06d', tonumber(t[2])), place)
  end
  redis.call('ZADD', lapses, now + lapse, place)
  keep()
  -- the release of whoever holds it next is announced: it may be this caller's turn then
  redis.call('SET', marker, '1', 'PX', math.max(pttl, lapse) + MARGIN)
end
if pttl == -2 and first then
  local until_ms = tonumber(redis.call('ZSCORE', lapses, first))
  if until_ms then
    pttl = math.max(until_ms - now, 0)
  end
end
return {0, pttl, who}
