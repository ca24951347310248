-- Give a delivery back: count the failed delivery, then dead-letter the message when it reached the
-- limit, else put it back at the end consumers take from next (at once, or after a delay).
-- Exactly once per delivery, like ack.lua.
--
-- KEYS[1]  the delivery's slot
-- KEYS[2]  settled numbers: hash of slot index -> last settled delivery number
-- KEYS[3]  failed-delivery counts: hash of SHA-1(payload) -> count
-- KEYS[4]  the queue
-- KEYS[5]  dead letters (list; newest at the left)
-- KEYS[6]  delayed messages: zset of token -> due time (ms, server clock)
-- KEYS[7]  delayed payloads: hash of token -> payload
-- KEYS[8]  enqueue times: hash of SHA-1(payload) -> ms
-- ARGV[1]  slot index      ARGV[2]  delivery number
-- ARGV[3]  failed deliveries after which the message is dead-lettered (>= 1)
-- ARGV[4]  delay in ms (0: requeue at once)
-- ARGV[5]  'R' when consumers take from the right (FIFO), 'L' from the left (LIFO)
-- ARGV[6]  a unique token naming the delayed entry
--
-- Returns {code, failures}: code 1 requeued, 4 delayed, 3 dead-lettered, 2 already settled, 0 gone
local slot, settled, attempts, queue, dead, delayed, delayedData, enqueued =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local index, n, limit, delay = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if tonumber(redis.call('HGET', settled, index) or '0') >= n then
  return {2, 0}
end
local payload = redis.call('RPOP', slot)
if not payload then
  return {0, 0}
end
redis.call('HSET', settled, index, n)
local sha = redis.sha1hex(payload)
local failures = redis.call('HINCRBY', attempts, sha, 1)
if failures >= limit then
  redis.call('LPUSH', dead, payload)
  redis.call('HDEL', attempts, sha)
  redis.call('HDEL', enqueued, sha)
  return {3, failures}
end
if delay > 0 then
  local t = redis.call('TIME')
  local due = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + delay
  redis.call('ZADD', delayed, due, ARGV[6])
  redis.call('HSET', delayedData, ARGV[6], payload)
  return {4, failures}
end
if ARGV[5] == 'R' then
  redis.call('RPUSH', queue, payload)
else
  redis.call('LPUSH', queue, payload)
end
return {1, failures}
