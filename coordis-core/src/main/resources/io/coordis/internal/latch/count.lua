-- Read a count-down latch's count, storing the initial count first when none is stored (the latch's first use).
-- See LatchLayout.
--
-- KEYS[1]  the latch's key (its name's derived key, e.g. {name}:latch): the count, a decimal string
-- ARGV[1]  the initial count (>= 1), stored only when the key is absent
-- ARGV[2]  the key's expiry after a change, in milliseconds (> 0)
--
-- Returns {count}  the stored count, 0 once the latch is open; an error naming the key and its type when it holds
-- something other than a count (left as it is)
local key = KEYS[1]
local initial, expiry = ARGV[1], ARGV[2]

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
return {count}
