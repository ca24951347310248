-- Publish to one unicast waiter: list the channels matching a pattern and publish to one of them,
-- chosen by a number the caller drew at random (scripts cannot draw one usefully themselves).
--
-- KEYS     none (channels are not keys)
-- ARGV[1]  glob pattern of the waiters' channels: the prefix, glob characters escaped, followed by ?*
-- ARGV[2]  a non-negative integer drawn at random by the caller; the waiter is number ARGV[2] mod count
-- ARGV[3]  the message
-- ARGV[4]  the channel name the waiters' channels start with, checked against the user's channel
--          permissions first where Redis can (7.0 and later)
--
-- Returns {0}  nobody waits (no subscribed channel matches)
--         {n}  the number of clients that received the message on the chosen channel (1 unless a
--              unicast id is shared)
local pattern, pick, message, base = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]

-- Redis 7 checks a user's channel permissions only on the PUBLISH itself: without this check a user who may
-- not publish to the channel would learn whether anybody waits there (0 instead of a refusal).
if base and redis.acl_check_cmd and not redis.acl_check_cmd('PUBLISH', base) then
  return redis.error_reply('NOPERM this user has no permissions to publish to the channel ' .. base)
end

local channels = redis.call('PUBSUB', 'CHANNELS', pattern)
if #channels == 0 then
  return {0}
end
return {redis.call('PUBLISH', channels[(math.floor(pick) % #channels) + 1], message)}
