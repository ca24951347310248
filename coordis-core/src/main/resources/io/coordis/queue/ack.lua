-- Acknowledge deliveries: remove each delivered message (its slot's rightmost element) exactly once.
-- A delivery is (slot, n): the n-th message handed out from that slot. The slot's last settled n is
-- recorded, so an ack that is retried after a lost reply finds it settled and removes nothing.
--
-- KEYS[1]     settled numbers: hash of slot index -> last settled delivery number
-- KEYS[2]     failed-delivery counts: hash of SHA-1(payload) -> count (cleared for the acked payload)
-- KEYS[3]     enqueue times: hash of SHA-1(payload) -> ms (cleared for the acked payload)
-- KEYS[4..]   the deliveries' slots
-- ARGV        two per slot: slot index, delivery number
--
-- Returns two entries per delivery: a code, 1 acked now, 2 already settled (acked or nacked before),
--         0 gone (the slot is empty: requeued by a sweeper that found this consumer's heartbeat expired);
--         then, for code 1, the payload's failed deliveries before this one (the count this ack clears), else 0
local settled, attempts, enqueued = KEYS[1], KEYS[2], KEYS[3]
local out = {}
for i = 4, #KEYS do
  local j = (i - 4) * 2
  local index, n = ARGV[j + 1], tonumber(ARGV[j + 2])
  if tonumber(redis.call('HGET', settled, index) or '0') >= n then
    out[#out + 1] = 2
    out[#out + 1] = 0
  else
    local payload = redis.call('RPOP', KEYS[i])
    if not payload then
      out[#out + 1] = 0
      out[#out + 1] = 0
    else
      redis.call('HSET', settled, index, n)
      local sha = redis.sha1hex(payload)
      local failures = tonumber(redis.call('HGET', attempts, sha) or '0')
      redis.call('HDEL', attempts, sha)
      redis.call('HDEL', enqueued, sha)
      out[#out + 1] = 1
      out[#out + 1] = failures
    end
  end
end
return out
