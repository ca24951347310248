-- Read one queue consumer's heartbeat and processing slots without touching the slots (TYPE and OBJECT
-- IDLETIME do not update a key's access time, so repeated reads do not change what they measure).
--
-- Keys: io.coordis.queue.QueueLayout.
--
-- KEYS[1]   the consumer's heartbeat {q}:hb:ID
-- KEYS[2..] its processing slots {q}:proc:ID:K (lists holding one delivery each, absent when free)
--
-- Returns {heartbeat pttl, idle...}: the heartbeat's PTTL (-2: expired, the consumer is dead), then per
--         slot -1 when free, else the seconds since the slot was last written or read (OBJECT IDLETIME:
--         normally since the delivery; reset by commands that read the slot), or -3 when the server
--         cannot tell (an LFU maxmemory-policy)
local out = {redis.call('PTTL', KEYS[1])}
for i = 2, #KEYS do
  if redis.call('TYPE', KEYS[i])['ok'] == 'none' then
    out[#out + 1] = -1
  else
    local idle = redis.pcall('OBJECT', 'IDLETIME', KEYS[i])
    if type(idle) == 'number' then
      out[#out + 1] = idle
    else
      out[#out + 1] = -3
    end
  end
end
return out
