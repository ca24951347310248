-- Move delayed messages whose due time has come back into the queue, at the end taken from next.
--
-- KEYS[1]  delayed messages: zset of token -> due time (ms, server clock)
-- KEYS[2]  delayed payloads: hash of token -> payload
-- KEYS[3]  the queue
-- ARGV[1]  'R' or 'L' (the end consumers take from)   ARGV[2]  at most this many per call
--
-- Returns {moved}
local delayed, data, queue = KEYS[1], KEYS[2], KEYS[3]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
for _, token in ipairs(due) do
  local payload = redis.call('HGET', data, token)
  if payload then
    if ARGV[1] == 'R' then
      redis.call('RPUSH', queue, payload)
    else
      redis.call('LPUSH', queue, payload)
    end
  end
  redis.call('ZREM', delayed, token)
  redis.call('HDEL', data, token)
end
return {#due}
