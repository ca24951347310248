-- Hand each given processing slot one message: the one already in it (the slot's rightmost element,
-- left there by a move whose reply was lost), else one moved atomically from the queue into it.
--
-- KEYS[1]     the queue (a plain list)
-- KEYS[2]     failed-delivery counts: hash of SHA-1(payload) -> count
-- KEYS[3..]   processing slots (lists), one message each is handed out
-- ARGV[1]     'R' to take from the right end (FIFO), 'L' from the left end (LIFO)
--
-- Returns a flat list, two entries per slot: payload (nil when the queue was empty), failed deliveries
--         so far (0 when none)
-- Errors  WRONGTYPE key '<queue>' holds a <type>  when the queue key is not a list
local queue, attempts = KEYS[1], KEYS[2]
local side = ARGV[1] == 'R' and 'RIGHT' or 'LEFT'
local kind = redis.call('TYPE', queue).ok
if kind ~= 'list' and kind ~= 'none' then
  return redis.error_reply("WRONGTYPE key '" .. queue .. "' holds a " .. kind)
end
local out = {}
for i = 3, #KEYS do
  local slot = KEYS[i]
  local payload = redis.call('LINDEX', slot, -1)
  if not payload then
    payload = redis.call('LMOVE', queue, slot, side, 'LEFT')
  end
  if payload then
    out[#out + 1] = payload
    out[#out + 1] = tonumber(redis.call('HGET', attempts, redis.sha1hex(payload)) or '0')
  else
    out[#out + 1] = false
    out[#out + 1] = 0
  end
end
return out
