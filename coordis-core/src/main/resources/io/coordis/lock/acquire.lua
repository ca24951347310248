-- Acquire a lock: SET <lock> <token> NX PX <ttl>, plus a fencing number and holder details.
-- Wire-compatible with every client that locks with SET NX PX and releases by compare-and-delete.
--
-- Keys and field names: io.coordis.lock.LockLayout.
--
-- KEYS[1]  lock key: the resource name exactly as given (plus the caller's explicit prefix, if any)
-- KEYS[2]  fencing counter: derived from the name, same cluster slot; a plain integer, never expires
-- KEYS[3]  holder details hash (token, holder, fence, since, ttl): derived, same slot; never expires, and
--          describes the lock only while its token field equals the lock's value
-- KEYS[4]  waiter marker: a key named like the release channel ({name}:released), set by a busy answer with
--          a TTL a little past the holder's, so that release.lua publishes only while somebody may wait
-- KEYS[5]  optional, Redlock's restart-guard marker: the node's run_id, set once a client verified that the
--          node has been up longer than its lock TTLs; a node restarted without persistence has lost it
-- ARGV[1]  token: unique per acquisition (hex of 20 bytes from SecureRandom)
-- ARGV[2]  ttl in milliseconds (> 0)
-- ARGV[3]  holder id, e.g. user@host:pid
-- ARGV[4]  acquisition time, milliseconds since the epoch (for operators; not used for safety)
-- ARGV[5]  with KEYS[5]: the run_id this client verified; a marker with another run_id (set by a client
--          with a shorter window after a restart) does not vouch for this client
--
-- Returns {1, fence}                    acquired; fence is the new fencing number
--         {0, pttl, holder or false}    busy; pttl in ms as PTTL answers it (-1: no expiry)
--         {-1}                          KEYS[5] given and missing or not ARGV[5]: verify the node first
-- Errors  WRONGTYPE key '<key>' holds a <type>  when the lock key is not a string; any error of the
--         counter or details keys, after which the lock is not held
local lock, fence_key, holder_key = KEYS[1], KEYS[2], KEYS[3]
local token, ttl, holder, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

if KEYS[5] and redis.call('GET', KEYS[5]) ~= ARGV[5] then
  return {-1}
end

if not redis.call('SET', lock, token, 'NX', 'PX', ttl) then
  local kind = redis.call('TYPE', lock)['ok']
  if kind ~= 'string' then
    return redis.error_reply("WRONGTYPE key '" .. lock .. "' holds a " .. kind)
  end
  local who = false
  if redis.call('HGET', holder_key, 'token') == redis.call('GET', lock) then
    who = redis.call('HGET', holder_key, 'holder')
  end
  local pttl = redis.call('PTTL', lock)
  -- A waiter wakes by itself at the holder's expiry at the latest; the margin covers its retry.
  redis.call('SET', KEYS[4], '1', 'PX', math.max(pttl, 0) + 5000)
  return {0, pttl, who}
end

local fence = redis.pcall('INCR', fence_key)
if type(fence) == 'table' and fence.err then
  redis.call('DEL', lock)
  return fence
end
local written = redis.pcall('HSET', holder_key, 'token', token, 'holder', holder, 'fence', fence, 'since', now,
  'ttl', ttl)
if type(written) == 'table' and written.err then
  redis.call('DEL', lock)
  return written
end
return {1, fence}
