-- A consumer's heartbeat: (re)set its heartbeat key with a TTL and (re)register it, so that sweepers
-- know its slots. Registering on every beat heals a registration removed while the consumer stalled.
--
-- Keys and the registry format: io.coordis.queue.QueueLayout.
--
-- KEYS[1]  the consumer's heartbeat key
-- KEYS[2]  the registry: hash of consumer id -> "<slots> <last beat ms> <ttl ms> <retention ms>"
-- ARGV[1]  consumer id   ARGV[2]  heartbeat TTL in ms   ARGV[3]  number of slots
-- ARGV[4]  retention in ms: how long after its last beat a dead consumer's registration is kept
--
-- Returns {existed, now}: existed 1 if the heartbeat key was still there (0: it had expired, and a
--         sweeper may have requeued this consumer's messages), now the server time in ms
local hb, registry = KEYS[1], KEYS[2]
local t = redis.call('TIME')
local now = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
local existed = redis.call('EXISTS', hb)
redis.call('SET', hb, now, 'PX', ARGV[2])
redis.call('HSET', registry, ARGV[1], ARGV[3] .. ' ' .. now .. ' ' .. ARGV[2] .. ' ' .. ARGV[4])
return {existed, tonumber(now)}
