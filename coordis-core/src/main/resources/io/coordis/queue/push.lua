-- Push messages at the back (left end) of a queue and note when each payload was first enqueued.
--
-- KEYS[1]  the queue (a plain list)
-- KEYS[2]  enqueue times: hash of SHA-1(payload) -> milliseconds (server clock), first push wins
-- ARGV     the payloads, in push order
--
-- Returns {length}  the queue's length afterwards
-- Errors  WRONGTYPE key '<queue>' holds a <type>  when the queue key is not a list
local queue, enqueued = KEYS[1], KEYS[2]
local kind = redis.call('TYPE', queue).ok
if kind ~= 'list' and kind ~= 'none' then
  return redis.error_reply("WRONGTYPE key '" .. queue .. "' holds a " .. kind)
end
local t = redis.call('TIME')
local now = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
for i = 1, #ARGV do
  redis.call('LPUSH', queue, ARGV[i])
  redis.call('HSETNX', enqueued, redis.sha1hex(ARGV[i]), now)
end
return {redis.call('LLEN', queue)}
