-- Return a consumer's in-flight messages to the queue, at the end consumers take from next, so they are
-- redelivered first. Mode 'dead': only if the consumer's heartbeat key is absent (the check and the moves
-- are one atomic step, so a live consumer is never robbed and concurrent sweepers cannot both move a
-- message), counting a failed delivery per message and dead-lettering at the limit. Mode 'release': the
-- consumer itself closing; no check, nothing counted, registration and heartbeat removed. Mode 'return': the
-- consumer giving back what one take moved but did not hand out (it was cancelled); no check, nothing counted,
-- registration and heartbeat kept.
--
-- KEYS[1]  heartbeat key      KEYS[2]  registry (hash)    KEYS[3]  the queue
-- KEYS[4]  failed-delivery counts (hash of SHA-1(payload) -> count)
-- KEYS[5]  dead letters       KEYS[6]  enqueue times      KEYS[7]  settled numbers of this consumer
-- KEYS[8]  settled count: messages acked or dead-lettered, ever (INCRBY'd by the dead letters of this sweep)
-- KEYS[9..] the consumer's processing slots
-- ARGV[1]  consumer id   ARGV[2]  failed deliveries before dead-lettering   ARGV[3]  'R' or 'L' (take end)
-- ARGV[4]  '1' to also remove the registration (dead mode; the caller saw it past its retention)
-- ARGV[5]  'dead', 'release' or 'return'
--
-- Returns {requeued, deadLettered}, or {-1, 0} when the heartbeat is present (the consumer is alive)
local hb, registry, queue, attempts, dead, enqueued, settled, settledCount =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local id, limit, right, forget, mode = ARGV[1], tonumber(ARGV[2]), ARGV[3] == 'R', ARGV[4] == '1', ARGV[5]
if mode == 'dead' and redis.call('EXISTS', hb) == 1 then
  return {-1, 0}
end
local requeued, deadLettered = 0, 0
for i = 9, #KEYS do
  while true do
    local payload = redis.call('RPOP', KEYS[i])
    if not payload then
      break
    end
    local failures = 0
    if mode == 'dead' then
      failures = redis.call('HINCRBY', attempts, redis.sha1hex(payload), 1)
    end
    if mode == 'dead' and failures >= limit then
      local sha = redis.sha1hex(payload)
      redis.call('LPUSH', dead, payload)
      redis.call('HDEL', attempts, sha)
      redis.call('HDEL', enqueued, sha)
      deadLettered = deadLettered + 1
    else
      if right then
        redis.call('RPUSH', queue, payload)
      else
        redis.call('LPUSH', queue, payload)
      end
      requeued = requeued + 1
    end
  end
end
if deadLettered > 0 then
  redis.call('INCRBY', settledCount, deadLettered)
end
if mode == 'release' or forget then
  redis.call('HDEL', registry, id)
  redis.call('DEL', settled, hb)
end
return {requeued, deadLettered}
