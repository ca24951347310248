-- Push messages at the back (left end) of a queue, in one LPUSH, and note when the call enqueued them: the time
-- is recorded for the call's first and last payloads only (the oldest and the newest it adds), so a message
-- pushed in the middle of a call finds its enqueue time on the nearest of those behind it (see
-- io.coordis.internal.queue.QueueLayout).
--
-- KEYS[1]  the queue (a plain list)
-- KEYS[2]  enqueue times: hash of SHA-1(payload) -> milliseconds (server clock), first push wins
-- ARGV     the payloads, in push order (at most a few thousand: they go to one LPUSH)
--
-- Returns {length}  the queue's length afterwards
-- Errors  WRONGTYPE (from the LPUSH, before anything is written) when the queue key is not a list;
--         the client names the key and its type
local queue, enqueued = KEYS[1], KEYS[2]
if #ARGV == 0 then
  return {redis.call('LLEN', queue)}
end
local length = redis.call('LPUSH', queue, unpack(ARGV))
local t = redis.call('TIME')
local now = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
redis.call('HSETNX', enqueued, redis.sha1hex(ARGV[1]), now)
if #ARGV > 1 then
  redis.call('HSETNX', enqueued, redis.sha1hex(ARGV[#ARGV]), now)
end
return {length}
