-- Read a queue's figures in one atomic step, without changing anything (for ls and inspect).
--
-- Keys and the registry format: io.coordis.queue.QueueLayout.
--
-- KEYS[1]  the queue (a plain list)          KEYS[2]  consumer registry {q}:consumers (hash)
-- KEYS[3]  dead letters {q}:dead (list)      KEYS[4]  delayed retries {q}:delayed (sorted set)
-- KEYS[5]  first enqueue times {q}:enqueued (hash of SHA-1(payload) -> Unix ms)
-- KEYS[6]  settled count {q}:settled (an integer: messages acked or dead-lettered, ever)
--
-- Returns {type, depth, enqueued, dead, delayed, registry, now, settled}
--         type      TYPE of KEYS[1]; for anything but 'list' and 'none' nothing else is read
--         depth     LLEN of the queue
--         enqueued  when the oldest ready message (the rightmost: producers push at the left) was first
--                   enqueued by a Coordis producer, Unix ms; false when unknown (foreign producer, empty). A push
--                   records the time for its first and last payloads only: read as the queue's oldest.lua does
--         dead, delayed  sizes of KEYS[3] and KEYS[4] (0 when absent or of another type)
--         registry  flat id/registration list of KEYS[2] ("<slots> <last beat ms> <ttl ms> <retention ms>")
--         now       the server's clock, Unix ms
--         settled   the integer in KEYS[6] (0 when absent or not an integer)
local queue, registry, dead, delayed, enqueued, settledCount = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]

local function typed(k, t)
  return redis.call('TYPE', k)['ok'] == t
end

local kind = redis.call('TYPE', queue)['ok']
if kind ~= 'list' and kind ~= 'none' then
  return {kind}
end
local depth, first = 0, false
if kind == 'list' then
  depth = redis.call('LLEN', queue)
  if depth > 0 and typed(enqueued, 'hash') then
    -- the oldest message's time, else that of the nearest message behind it within a push's reach (1000)
    for i = 1, math.min(depth, 1000) do
      first = redis.call('HGET', enqueued, redis.sha1hex(redis.call('LINDEX', queue, -i))) or false
      if first then
        break
      end
    end
  end
end
local dead_count = 0
if typed(dead, 'list') then
  dead_count = redis.call('LLEN', dead)
end
local delayed_count = 0
if typed(delayed, 'zset') then
  delayed_count = redis.call('ZCARD', delayed)
end
local consumers = {}
if typed(registry, 'hash') then
  consumers = redis.call('HGETALL', registry)
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local settled = 0
if typed(settledCount, 'string') then
  settled = tonumber(redis.call('GET', settledCount)) or 0
end
return {kind, depth, first, dead_count, delayed_count, consumers, now, settled}
