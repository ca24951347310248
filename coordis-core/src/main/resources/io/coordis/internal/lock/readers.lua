-- Read the read holds of a read-write lock and whether a writer waits, without changing anything.
--
-- Keys and field names: io.coordis.lock.LockLayout; the layout is read-acquire.lua's.
--
-- KEYS[1]  lock key ('coordis:readers' while readers hold it)
-- KEYS[2]  readers: sorted set of token -> expiry, Unix ms on Redis's clock
-- KEYS[3]  readers' details hash
-- KEYS[4]  the write holds' holder details hash (its 'waiting-writer' field)
--
-- Returns {readers, details, waiting, now}
--         readers  flat token/expiry list of the live read holds, longest last; empty unless the key holds them
--         details  flat field/value list of KEYS[3] (empty unless the key holds read holds)
--         waiting  ms left of a waiting writer's mark (0: none)
--         now      the server's clock, Unix ms
local lock, readers, details, holder_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local live, fields = {}, {}
if redis.call('TYPE', lock)['ok'] == 'string' and redis.call('GET', lock) == 'coordis:readers' then
  live = redis.call('ZRANGEBYSCORE', readers, '(' .. now, '+inf', 'WITHSCORES')
  fields = redis.call('HGETALL', details)
end
local waiting = 0
if redis.call('TYPE', holder_key)['ok'] == 'hash' then
  waiting = math.max(0, (tonumber(redis.call('HGET', holder_key, 'waiting-writer') or '0') or 0) - now)
end
return {live, fields, waiting, now}
