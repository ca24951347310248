-- Signal a latched event: record the data with a time to live, then publish it, so that a waiter who
-- subscribes and then reads the key cannot miss it whichever comes first.
--
-- KEYS[1]  the event's key (its name's derived key, e.g. {name}:event)
-- ARGV[1]  the event's channel (its name)
-- ARGV[2]  the data
-- ARGV[3]  time to live of the record, in milliseconds (> 0)
--
-- Returns {n}  the number of clients that received the message on this node; a WRONGTYPE error when the
-- key holds something other than a string (SET would silently replace it)
local key = KEYS[1]
local channel, data, ttl = ARGV[1], ARGV[2], ARGV[3]

local t = redis.call('TYPE', key)
t = type(t) == 'table' and t.ok or t
if t ~= 'none' and t ~= 'string' then
  return redis.error_reply("WRONGTYPE key '" .. key .. "' holds a " .. t)
end
redis.call('SET', key, data, 'PX', ttl)
return {redis.call('PUBLISH', channel, data)}
