-- Force a lock open for an operator: delete it whoever holds it, bump its fencing counter (so a stale
-- holder's writes carry a smaller number than any later holder's), wake waiting Coordis clients, and
-- append an audit entry; all at once, so no reader sees the lock gone without its audit entry.
--
-- Keys and field names: io.coordis.lock.LockLayout.
--
-- KEYS[1]  lock key
-- KEYS[2]  fencing counter (derived from the name, same slot; fencing.lua), kept ARGV[6] after the bump
-- KEYS[3]  holder details hash (derived): read for the audit entry, then deleted
-- KEYS[4]  audit list (derived, {name}:audit): newest entry first, at most 100 entries kept, for a day after the
--          last
-- ARGV[1]  who forces it, e.g. user@host:pid
-- ARGV[2]  why (free text, may be empty)
-- ARGV[3]  now, milliseconds since the epoch (the operator's clock)
-- ARGV[4]  channel on which waiting Coordis clients listen for releases
-- ARGV[5]  expected value of the lock: force only while it still holds this value (the holder the
--          operator was shown); empty: whatever holds it
-- ARGV[6]  how long the fencing counter is kept after the bump, milliseconds
--
-- Audit entry (a JSON object, one list element):
--   {"at":<ARGV[3]>,"by":"<ARGV[1]>","action":"force-unlock","reason":"<ARGV[2]>",
--    "holder":"<holder id, or unknown for a foreign client>","fence":<counter after the bump>}
--
-- Returns {0}                                 not held: nothing changed
--         {2, value}                          held with another value than ARGV[5]: nothing changed
--         {1, fence, value, holder or false}  forced; fence is the counter after the bump, value what
--                                             the lock held, holder its holder id (false: foreign)
-- Errors  WRONGTYPE key '<key>' holds a <type>  when the lock key is not a string; a counter that is not
--         an integer fails before anything changed
-- include fencing.lua

local lock, fence_key, holder_key, audit_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local by, reason, now, channel, expected = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]

local kind = redis.call('TYPE', lock)['ok']
if kind == 'none' then
  return {0}
end
if kind ~= 'string' then
  return redis.error_reply("WRONGTYPE key '" .. lock .. "' holds a " .. kind)
end
local value = redis.call('GET', lock)
if expected ~= '' and value ~= expected then
  return {2, value}
end

local fence = take_fences(fence_key, 1, ARGV[6])
if type(fence) == 'table' and fence.err then
  return fence
end
local holder = false
if redis.call('HGET', holder_key, 'token') == value then
  holder = redis.call('HGET', holder_key, 'holder')
end
redis.call('DEL', lock, holder_key)
redis.call('PUBLISH', channel, 'released')

local entry = '{"at":' .. string.format('%d', tonumber(now)) .. ',"by":' .. cjson.encode(by)
    .. ',"action":"force-unlock","reason":' .. cjson.encode(reason)
    .. ',"holder":' .. cjson.encode(holder or 'unknown') .. ',"fence":' .. decimal(fence) .. '}'
redis.call('LPUSH', audit_key, entry)
redis.call('LTRIM', audit_key, 0, 99)
redis.call('PEXPIRE', audit_key, 86400000)
return {1, fence, value, holder}
