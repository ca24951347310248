-- An operator's requeue: move dead letters back to the back of the queue, oldest dead letter first,
-- as if pushed anew (their failure counts were cleared when they were dead-lettered).
--
-- KEYS[1]  dead letters (newest at the left)
-- KEYS[2]  the queue
-- ARGV[1]  at most this many
--
-- Returns {moved}
local dead, queue, limit = KEYS[1], KEYS[2], tonumber(ARGV[1])
local moved = 0
while moved < limit do
  local payload = redis.call('RPOP', dead)
  if not payload then
    break
  end
  redis.call('LPUSH', queue, payload)
  moved = moved + 1
end
return {moved}
