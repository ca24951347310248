-- Count a count-down latch down by one, storing the initial count first when none is stored; the call that takes
-- the count to zero publishes the opening, once. Each change sets the key to expire after ARGV[3]; a count
-- already at zero is left alone, so an open latch expires after its opening. See LatchLayout.
--
-- KEYS[1]  the latch's key (its name's derived key, e.g. {name}:latch): the count, a decimal string
-- ARGV[1]  the latch's channel, on which the opening is published
-- ARGV[2]  the initial count (>= 1), stored only when the key is absent
-- ARGV[3]  the key's expiry after a change, in milliseconds (> 0)
--
-- Returns {count, opened}  the count after this call (0 once open), and 1 when this call opened the latch, else 0;
-- an error naming the key and its type when it holds something other than a count (left as it is)
local key = KEYS[1]
local channel, initial, expiry = ARGV[1], ARGV[2], ARGV[3]

redis.call('SET', key, initial, 'NX', 'PX', expiry)
local stored = redis.pcall('GET', key)
if type(stored) == 'table' then -- an error: name the key and its type rather than Redis's generic WRONGTYPE
  if stored.err and string.find(stored.err, 'WRONGTYPE', 1, true) then
    return redis.error_reply("WRONGTYPE key '" .. key .. "' holds a " .. redis.call('TYPE', key)['ok'])
  end
  return stored
end
local count = tonumber(stored)
if not count then
  return redis.error_reply("WRONGTYPE key '" .. key .. "' holds a string that is no latch count")
end
if count <= 0 then
  return {0, 0}
end
count = redis.call('INCRBY', key, -1) -- INCRBY rather than DECR: one command less to grant
redis.call('PEXPIRE', key, expiry)
if count == 0 then
  redis.call('PUBLISH', channel, 'open')
  return {0, 1}
end
return {count, 0}
