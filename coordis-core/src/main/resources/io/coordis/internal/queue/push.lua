-- Push messages at the back (left end) of a queue and note when each payload was first enqueued.
--
-- KEYS[1]  the queue (a plain list)
-- KEYS[2]  enqueue times: hash of SHA-1(payload) -> milliseconds (server clock), first push wins
-- ARGV     the payloads, in push order
--
-- Returns {length}  the queue's length afterwards
-- Errors  WRONGTYPE (from the first LPUSH, before anything is written) when the queue key is not a list;
--         the client names the key and its type
local queue, enqueued = KEYS[1], KEYS[2]
local t = redis.call('TIME')
local now = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
local length = 0
for i = 1, #ARGV do
  length = redis.call('LPUSH', queue, ARGV[i])
  redis.call('HSETNX', enqueued, redis.sha1hex(ARGV[i]), now)
end
if #ARGV == 0 then
  length = redis.call('LLEN', queue)
end
return {length}
