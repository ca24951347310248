-- The enqueue time of a queue's oldest message (the rightmost: producers push at the left). A push records the
-- time for its first and last payloads only, so when the oldest has none, the nearest message behind it that has
-- one (within one push's reach) tells when it was enqueued: in the same call, or later.
--
-- KEYS[1]  the queue (a plain list)
-- KEYS[2]  enqueue times: hash of SHA-1(payload) -> milliseconds (server clock)
-- ARGV[1]  how many messages from the oldest to look at, at most (a push's largest call)
--
-- Returns {ms}, the enqueue time, or {} when the queue is empty or no message looked at has one (pushed by
--         another client)
local queue, enqueued = KEYS[1], KEYS[2]
for i = 1, tonumber(ARGV[1]) do
  local message = redis.call('LINDEX', queue, -i)
  if not message then
    return {}
  end
  local at = redis.call('HGET', enqueued, redis.sha1hex(message))
  if at then
    return {tonumber(at)}
  end
end
return {}
