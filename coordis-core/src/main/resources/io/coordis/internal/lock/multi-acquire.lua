-- Acquire several locks at once, all or none: for each name what acquire.lua's grant writes (SET NX PX with one
-- token, a fencing number from the name's own counter, the holder details), so every name is an ordinary lock to
-- other clients, to inspection and to release.lua. Nothing is written unless every lock is free.
-- On Redis Cluster every key of one call lies in one hash slot; a multi-lock over several slots calls this once per
-- slot (docs/safety.md, "Multi-lock").
--
-- Keys and field names: io.coordis.lock.LockLayout.
--
-- KEYS[1..]  four keys per name, name i's at 4i-3 to 4i: its lock key; its fencing counter (fencing.lua); its
--             holder details hash (token, holder, fence, since, ttl), with the lock's PX; its waiter marker
--             ({name}:released as a key): a busy answer to a caller that waits (ARGV[5]) sets the busy name's, with
--             a PX 5 s past its holder's, so that its release is published
-- ARGV[1]  token: unique per acquisition, the same at every name
-- ARGV[2]  ttl in milliseconds (> 0)
-- ARGV[3]  holder id, e.g. user@host:pid
-- ARGV[4]  acquisition time, milliseconds since the epoch (for operators; not used for safety)
-- ARGV[5]  '1' when the caller waits if a name is busy; otherwise ('0') a busy answer writes nothing
-- ARGV[6]  how long each fencing counter is kept after it gave a number, milliseconds
--
-- Returns {1, fence1, fence2, ...}   acquired every name; fence i is name i's new fencing number
--         {0, pttl, holder or false, i}  name i is busy (the first busy one); pttl in ms as PTTL answers it
--                                    (-1: no expiry); nothing was taken
-- Errors  WRONGTYPE key '<key>' holds a <type>  when a lock key is not a string; any error of a counter or
--         details key, after which no name is held
-- include fencing.lua

local token, ttl, holder, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local waits = ARGV[5] == '1'
local count = #KEYS / 4

for i = 1, count do
  local lock = KEYS[4 * i - 3]
  local kind = redis.call('TYPE', lock)['ok']
  if kind ~= 'none' then
    if kind ~= 'string' then
      return redis.error_reply("WRONGTYPE key '" .. lock .. "' holds a " .. kind)
    end
    local current = redis.call('GET', lock)
    local who = false
    if redis.call('HGET', KEYS[4 * i - 1], 'token') == current then
      who = redis.call('HGET', KEYS[4 * i - 1], 'holder')
    end
    local pttl = redis.call('PTTL', lock)
    if waits then
      redis.call('SET', KEYS[4 * i], '1', 'PX', math.max(pttl, 0) + 5000)
    end
    return {0, pttl, who, i}
  end
end

local result = {1}
for i = 1, count do
  local lock, holder_key = KEYS[4 * i - 3], KEYS[4 * i - 1]
  redis.call('SET', lock, token, 'PX', ttl)
  local fence = take_fences(KEYS[4 * i - 2], 1, ARGV[6])
  local written = fence
  if not (type(fence) == 'table' and fence.err) then
    written = redis.pcall('HSET', holder_key, 'token', token, 'holder', holder, 'fence', decimal(fence), 'since', now,
      'ttl', ttl, 'waiting-writer', 0)
  end
  if type(written) == 'table' and written.err then
    for j = 1, i do
      if redis.call('GET', KEYS[4 * j - 3]) == token then
        redis.call('DEL', KEYS[4 * j - 3], KEYS[4 * j - 1])
      end
    end
    return written
  end
  redis.call('PEXPIRE', holder_key, ttl)
  result[i + 1] = fence
end
return result
