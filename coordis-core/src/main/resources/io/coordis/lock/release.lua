-- Release a lock only if it still holds our token (compare-and-delete), and wake waiting clients.
--
-- KEYS[1]  lock key
-- ARGV[1]  token of the acquisition being released
-- ARGV[2]  channel on which waiting Coordis clients listen for releases
--
-- Returns {1}  released
--         {0}  not ours any more (expired, or held by someone else): nothing was touched
local lock = KEYS[1]
local token, channel = ARGV[1], ARGV[2]

if redis.call('GET', lock) ~= token then
  return {0}
end
redis.call('DEL', lock)
redis.call('PUBLISH', channel, 'released')
return {1}
