-- Acquire a legacy lock: the SETNX pattern, whose value is the time at which the lock expires; or, without
-- ARGV, only read who holds it, changing nothing.
-- Wire-compatible with clients that lock with SETNX <lock> <expiry>, take an expired lock over with
-- GETSET and release with DEL while their own expiry has not passed. Such a client must re-check the
-- old value GETSET returns because another client may have written in between; this script runs
-- atomically, so the value it reads is still the value it replaces.
--
-- KEYS[1]  lock key: the resource name exactly as given (plus the caller's explicit prefix, if any)
-- KEYS[2]  fencing counter: derived from the name, same cluster slot; kept ARGV[3] after its last number
--          (fencing.lua)
-- ARGV[1]  ttl in milliseconds (> 0); the value written is Redis's TIME in Unix ms + ttl + 1. Absent: only read
-- ARGV[2]  key expiry margin in milliseconds (>= 0): the key also expires this long after the value
--          written, so a crashed holder leaves no garbage; readers of the value never see it vanish
--          before the value has expired
-- ARGV[3]  with ARGV[1], how long the fencing counter is kept after it gave a number, milliseconds
--
-- Values read: a plain non-negative decimal number. Below 1e11 it is Unix seconds (integer or with a
-- fraction) and expires at the end of that second; otherwise it is Unix milliseconds. Anything else
-- is unreadable and never taken over.
--
-- Returns {1, fence, value}   acquired; fence is the new fencing number, value the expiry written
--                             (Unix ms, as a decimal string)
--         {0, wait}           busy; wait = ms until the stored expiry passes, or, for an unreadable
--                             value, the key's PTTL in ms (-1: no expiry)
--         reading only:
--         {false}             not held: no key, or its stored expiry has passed
--         {value, wait}       held: the value stored, and wait as above
-- Errors  WRONGTYPE key '<key>' holds a <type>  when the lock key is not a string
-- include fencing.lua

local lock = KEYS[1]
local ttl = tonumber(ARGV[1])

local function expiry_ms(value)
  if not value or not string.match(value, '^%d+%.?%d*$') then
    return nil
  end
  local n = tonumber(value)
  if n < 1e11 then
    return (math.floor(n) + 1) * 1000 - 1
  end
  return n
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local kind = redis.call('TYPE', lock)['ok']
if kind ~= 'none' then
  if kind ~= 'string' then
    return redis.error_reply("WRONGTYPE key '" .. lock .. "' holds a " .. kind)
  end
  local value = redis.call('GET', lock)
  local expiry = expiry_ms(value)
  local wait = nil
  if not expiry then
    wait = redis.call('PTTL', lock)
  elseif expiry >= now then
    wait = math.min(expiry - now, 1e15)
  end
  if wait then
    return {ttl and 0 or value, wait}
  end
end

if not ttl then
  return {false}
end
local value = string.format('%d', now + ttl + 1)
redis.call('SET', lock, value, 'PX', string.format('%d', ttl + 1 + tonumber(ARGV[2])))
local fence = take_fences(KEYS[2], 1, ARGV[3])
if type(fence) == 'table' then
  return fence
end
return {1, fence, value}
