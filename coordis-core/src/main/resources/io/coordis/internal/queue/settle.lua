-- Settle deliveries, then hand slots their next message, in one step: the ack, the nack and the take of the
-- reliable queue, and the two together ("ack and take the next" is one round trip per message for a busy
-- consumer). Either part may be empty: a take settles nothing, an ack takes nothing.
--
-- Settling. A delivery is (slot, n): the n-th message handed out from that slot, always the slot's rightmost
-- element. The slot's last settled n is recorded, so a settle retried after a lost reply finds it settled and
-- touches nothing. One HINCRBY records it: a slot's deliveries are settled one after another, so the increment
-- usually lands on n; one past n (already settled) is undone, one short of n (a number skipped: that delivery
-- was never settled) is raised to n, and one that finds the slot empty (gone) is undone. An ack removes the
-- message and clears the payload's enqueue time and failed-delivery count (unless the take reported none); a
-- nack counts a failed delivery, then dead-letters the message at the limit, else puts it back at the end
-- consumers take from next (at once, or after a delay).
-- Taking. Each take slot gets the message already in it (its rightmost element, left there by a move whose
-- reply was lost; not looked for when the client knows the slot empty or this call has just settled it empty: a
-- slot holds one message at a time), else one moved atomically from the queue into it. A slot settled here may be
-- taken into again: what it is handed is a delivery like any other (counted, swept if the consumer dies). Once
-- the queue is found empty, the remaining slots get only what they already hold.
-- Failed-delivery counts are read only while the counts hash exists (while some message has failed).
--
-- KEYS[1]  the queue (a plain list)
-- KEYS[2]  failed-delivery counts: hash of SHA-1(payload) -> count
-- KEYS[3]  settled numbers of the consumer: hash of slot index -> last settled delivery number
-- KEYS[4]  enqueue times: hash of SHA-1(payload) -> ms
-- KEYS[5]  dead letters (list; newest at the left)
-- KEYS[6]  delayed messages: zset of token -> due time (ms, server clock)
-- KEYS[7]  delayed payloads: hash of token -> payload
-- KEYS[8]  settled count: messages acked or dead-lettered, ever (an integer, INCRBY'd once per call)
-- KEYS[9..]  the settled deliveries' slots (the first S of these, S = ARGV[3]), then the slots to take into
-- ARGV[1]  'R' when consumers take from the right end (FIFO), 'L' from the left (LIFO)
-- ARGV[2]  failed deliveries after which a nacked message is dead-lettered (>= 1)
-- ARGV[3]  S, the number of deliveries to settle
-- ARGV[4..] six per settled delivery: slot index, delivery number, 'A' (ack) or 'N' (nack),
--          nack delay in ms (0: requeue at once), a unique token naming a delayed entry, and the payload's failed
--          deliveries as the take reported them (-1: not known; 0: the ack touches no failed-delivery count)
-- ARGV[4 + 6S..] one per take slot: '1' when it may hold a message (look into it), '0' when the client knows it empty
--
-- Returns a flat list: two entries per settled delivery, then two per take slot.
--   Settled, ack:  code 1 acked now, 2 already settled (acked or nacked before), 0 gone (the slot is empty:
--                  requeued by a sweeper that found this consumer's heartbeat expired); then, for code 1, the
--                  payload's failed deliveries before this one (the count the ack clears), else 0
--   Settled, nack: code 1 requeued, 4 delayed, 3 dead-lettered, 2 already settled, 0 gone; then, unless 2 or
--                  0, the failed deliveries including this one, else 0
--   Take slot:     payload (false when the queue was empty), failed deliveries so far (0 when none)
-- Errors  WRONGTYPE key '<queue>' holds a <type>  when the queue key is not a list
local queue, attempts, settled, enqueued, dead, delayed, delayedData, settledCount =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local right, limit, count = ARGV[1] == 'R', tonumber(ARGV[2]), tonumber(ARGV[3])
local out = {}
local finished = 0 -- messages this call acked or dead-lettered
local emptied = {} -- slots this call settled a message out of: empty now (a slot holds one message at a time)

local function answer(code, number)
  out[#out + 1] = code
  out[#out + 1] = number
end

local function ack(payload, known)
  local sha = redis.sha1hex(payload)
  local failures = 0
  if known ~= 0 then
    failures = tonumber(redis.call('HGET', attempts, sha) or '0')
    if failures > 0 then
      redis.call('HDEL', attempts, sha)
    end
  end
  redis.call('HDEL', enqueued, sha)
  finished = finished + 1
  answer(1, failures)
end

local function nack(payload, delay, token)
  local sha = redis.sha1hex(payload)
  local failures = redis.call('HINCRBY', attempts, sha, 1)
  if failures >= limit then
    redis.call('LPUSH', dead, payload)
    redis.call('HDEL', attempts, sha)
    redis.call('HDEL', enqueued, sha)
    finished = finished + 1
    return answer(3, failures)
  end
  if delay > 0 then
    local t = redis.call('TIME')
    local due = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + delay
    redis.call('ZADD', delayed, due, token)
    redis.call('HSET', delayedData, token, payload)
    return answer(4, failures)
  end
  redis.call(right and 'RPUSH' or 'LPUSH', queue, payload)
  answer(1, failures)
end

for i = 1, count do
  local j = 3 + (i - 1) * 6
  local slot, index, n = KEYS[8 + i], ARGV[j + 1], tonumber(ARGV[j + 2])
  local now = redis.call('HINCRBY', settled, index, 1)
  if now > n then
    redis.call('HINCRBY', settled, index, -1)
    answer(2, 0)
  else
    if now < n then
      redis.call('HSET', settled, index, n)
    end
    local payload = redis.call('RPOP', slot)
    if not payload then
      -- gone, not settled: a retry answers gone again, and a consumer swept and forgotten gets no hash back
      if now == 1 then
        redis.call('HDEL', settled, index)
      else
        redis.call('HSET', settled, index, now - 1)
      end
      answer(0, 0)
    else
      emptied[slot] = true
      if ARGV[j + 3] == 'A' then
        ack(payload, tonumber(ARGV[j + 6]))
      else
        nack(payload, tonumber(ARGV[j + 4]), ARGV[j + 5])
      end
    end
  end
end

if finished > 0 then
  redis.call('INCRBY', settledCount, finished)
end
if #KEYS < 9 + count then
  return out
end
local counted = redis.call('EXISTS', attempts) == 1
local side = right and 'RIGHT' or 'LEFT'
local dry = false -- an LMOVE found the queue empty: it stays so until this script ends
for i = 9 + count, #KEYS do
  local slot = KEYS[i]
  local payload = nil
  if ARGV[4 + 6 * count + i - (9 + count)] == '1' and not emptied[slot] then
    payload = redis.call('LINDEX', slot, -1)
  end
  if not payload and not dry then
    payload = redis.pcall('LMOVE', queue, slot, side, 'LEFT')
    if type(payload) == 'table' and payload.err then
      local kind = redis.call('TYPE', queue).ok
      if kind ~= 'list' and kind ~= 'none' then
        return redis.error_reply("WRONGTYPE key '" .. queue .. "' holds a " .. kind)
      end
      return payload
    end
    dry = not payload
  end
  if payload then
    answer(payload, counted and tonumber(redis.call('HGET', attempts, redis.sha1hex(payload)) or '0') or 0)
  else
    answer(false, 0)
  end
end
return out
