-- Acquire a lock: SET <lock> <token> NX PX <ttl>, plus a fencing number and holder details; or hand a lock this
-- client holds to the next waiter in the same client (ARGV[6]), in one call instead of release + notification +
-- acquire, leaving exactly what release.lua followed by an acquisition would leave.
-- Wire-compatible with every client that locks with SET NX PX and releases by compare-and-delete.
--
-- Keys and field names: io.coordis.lock.LockLayout.
--
-- KEYS[1]  lock key: the resource name exactly as given (plus the caller's explicit prefix, if any)
-- KEYS[2]  fencing counter: derived from the name, same cluster slot; kept ARGV[11] after its last number, and
--          never going back (fencing.lua)
-- KEYS[3]  holder details hash (token, holder, fence, since, ttl): derived, same slot; written with the lock's
--          PX (a grant, a hand-off), so it lives and dies with the hold, and describes the lock only while its
--          token field equals the lock's value. Its 'waiting-writer' field (Unix ms, Redis's clock) is set by a
--          busy answer to a caller that waits (ARGV[10]) on a key read holds keep ('coordis:readers', see
--          read-acquire.lua): new read holds wait until then, so readers cannot starve writers; the hash then
--          expires with that mark (2 s); a grant clears it
-- KEYS[4]  waiter marker: a key named like the release channel ({name}:released), set by a busy answer to a
--          caller that waits (ARGV[10]) with a TTL a little past the holder's, so that release.lua publishes
--          only while somebody may wait
-- KEYS[5]  optional, Redlock's restart-guard marker: the node's run_id, set once a client verified that the
--          node has been up longer than its lock TTLs; a node restarted without persistence has lost it
-- ARGV[1]  token: unique per acquisition (hex of 20 bytes from SecureRandom)
-- ARGV[2]  ttl in milliseconds (> 0)
-- ARGV[3]  holder id, e.g. user@host:pid
-- ARGV[4]  acquisition time, milliseconds since the epoch (for operators; not used for safety)
-- ARGV[5]  with KEYS[5]: the run_id this client verified; a marker with another run_id (set by a client
--          with a shorter window after a restart) does not vouch for this client. Otherwise unused ('')
-- ARGV[6]  optional, a hand-off: the token of the acquisition being handed over (then no KEYS[5])
-- ARGV[7]  with ARGV[6]: '1' when the caller yields to other clients that marked that they wait: if the marker
--          is there, release and publish instead of handing over
-- ARGV[8]  with ARGV[6]: the channel on which waiting clients listen for releases
-- ARGV[9]  optional, how many fencing numbers to take (default 1): the acquisition gets the first, and the caller
--          may hand the lock on inside its own client with the others, without a call, while its token holds the
--          lock (nobody else can take a number for the name meanwhile). ARGV[5..8] are then given, '' when unused
-- ARGV[10] optional, '1' when the caller waits for the lock if it is busy: only then does a busy answer write
--          (the waiter marker, 'waiting-writer'); otherwise (absent, '' or '0': a try) a busy answer writes
--          nothing. ARGV[5..9] are then given ('' when unused; ARGV[9] '1' for one number)
-- ARGV[11] how long the fencing counter is kept after it gave a number, milliseconds; ARGV[5..10] are given
--
-- Returns {1, fence}                    acquired (or handed over); fence is the new fencing number (the first of
--                                       the ARGV[9] taken)
--         {0, pttl, holder or false}    busy; pttl in ms as PTTL answers it (-1: no expiry); while read holds
--                                       keep the key and the caller waits, at most 500: the waiting writer
--                                       tries again before its 'waiting-writer' mark (2 s) lapses
--         {-1}                          KEYS[5] given and missing or not ARGV[5]: verify the node first
--         {0}                           hand-off: the lock is not held by ARGV[6] any more; nothing was touched
--         {2}                           hand-off yielding to a marked waiter: released, waiting clients notified
-- Errors  WRONGTYPE key '<key>' holds a <type>  when the lock key is not a string; any error of the
--         counter or details keys, after which the lock is not held
-- include fencing.lua

local lock, fence_key, holder_key, marker = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local token, ttl, holder, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local handed = ARGV[6]
local waits = ARGV[10] == '1'
if handed == '' then
  handed = nil
end
local taken = tonumber(ARGV[9] or '1')

if KEYS[5] and redis.call('GET', KEYS[5]) ~= ARGV[5] then
  return {-1}
end

if handed then
  if redis.call('GET', lock) ~= handed then
    return {0}
  end
  if ARGV[7] == '1' and redis.call('DEL', marker) == 1 then
    redis.call('DEL', lock, holder_key)
    redis.call('PUBLISH', ARGV[8], 'released')
    return {2}
  end
  redis.call('SET', lock, token, 'PX', ttl)
elseif not redis.call('SET', lock, token, 'NX', 'PX', ttl) then
  local kind = redis.call('TYPE', lock)['ok']
  if kind ~= 'string' then
    return redis.error_reply("WRONGTYPE key '" .. lock .. "' holds a " .. kind)
  end
  local current = redis.call('GET', lock)
  local who = false
  if redis.call('HGET', holder_key, 'token') == current then
    who = redis.call('HGET', holder_key, 'holder')
  end
  local pttl = redis.call('PTTL', lock)
  if not waits then
    return {0, pttl, who}
  end
  -- A waiter wakes by itself at the holder's expiry at the latest; the margin covers its retry.
  redis.call('SET', marker, '1', 'PX', math.max(pttl, 0) + 5000)
  if current == 'coordis:readers' then
    -- no write hold while readers hold: the hash holds only the mark, and lapses with it
    local t = redis.call('TIME')
    redis.call('HSET', holder_key, 'waiting-writer', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + 2000)
    redis.call('PEXPIRE', holder_key, 2000)
    pttl = math.min(pttl, 500)
  end
  return {0, pttl, who}
end

local fence = take_fences(fence_key, taken, ARGV[11])
if type(fence) == 'table' and fence.err then
  redis.call('DEL', lock)
  return fence
end
local written = redis.pcall('HSET', holder_key, 'token', token, 'holder', holder, 'fence', decimal(fence), 'since', now,
  'ttl', ttl, 'waiting-writer', 0)
if type(written) == 'table' and written.err then
  redis.call('DEL', lock)
  return written
end
redis.call('PEXPIRE', holder_key, ttl)
return {1, fence}
