-- Campaign for a leadership, or renew the one the caller holds: the leader key holds the leader's id
-- with a TTL (SET NX PX), and every new leadership takes a term from a counter that only grows, the
-- fencing token for whatever the leader writes. The incumbent renews before its TTL runs out, so it is
-- re-elected without a gap.
--
-- Keys and field names: io.coordis.election.ElectionLayout.
--
-- KEYS[1]  leader key: the election's name exactly as given (plus the caller's explicit prefix, if any)
-- KEYS[2]  term counter: derived from the name, same cluster slot; kept ARGV[8] after it last gave a term, and
--          never going back (fencing.lua)
-- KEYS[3]  leadership details hash (id, term, since, claim): derived, same slot; expires with the leader key, and
--          describes the leadership only while its id field equals the leader key's value
-- ARGV[1]  candidate id
-- ARGV[2]  ttl in milliseconds (> 0)
-- ARGV[3]  the term the caller holds and wants renewed; 0 to campaign for a new leadership
-- ARGV[4]  the highest term the caller has seen (0: none); a new term must be above it
-- ARGV[5]  the time now, milliseconds since the epoch (for operators; not used for safety)
-- ARGV[6]  channel on which a new leadership is announced ("elected <term> <id>")
-- ARGV[7]  claim: a random token unique to this campaign try, kept with a new leadership's details, so that a
--          candidate whose answer was lost can resign what the try won without knowing its term (resign.lua)
--
-- ARGV[8]  how long the term counter is kept after a term is taken, milliseconds
--
-- Returns {1, term, regressed}                 the caller leads: renewed (ARGV[3] > 0) or newly elected.
--                                              regressed is 0, or the value the counter gave that was not
--                                              above ARGV[4] (Redis lost data): that value is refused, the
--                                              counter is raised to ARGV[4] + 1 and that is the term
--         {0, pttl, leader id or false, term or false}
--                                              not elected / not renewed: another candidate leads (its id
--                                              and term; term false for a key Coordis did not write), or,
--                                              for a renewal, the caller's term is over; pttl as PTTL
--                                              answers it (-2: no leader, -1: no expiry)
-- Errors   WRONGTYPE key '<key>' holds a <type>  when the leader key is not a string
-- include fencing.lua

local leader_key, term_key, details_key = KEYS[1], KEYS[2], KEYS[3]
local id, ttl, held, seen, now, channel, claim = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5],
  ARGV[6], ARGV[7]

local kind = redis.call('TYPE', leader_key)['ok']
if kind ~= 'string' and kind ~= 'none' then
  return redis.error_reply("WRONGTYPE key '" .. leader_key .. "' holds a " .. kind)
end
local current = redis.call('GET', leader_key)
local current_term = false
if current and redis.call('HGET', details_key, 'id') == current then
  current_term = tonumber(redis.call('HGET', details_key, 'term'))
end

if held > 0 then
  if current == id and current_term == held then
    redis.call('PEXPIRE', leader_key, ttl)
    redis.call('PEXPIRE', details_key, ttl)
    return {1, held, 0}
  end
  return {0, redis.call('PTTL', leader_key), current, current_term}
end

if current then
  return {0, redis.call('PTTL', leader_key), current, current_term}
end
local term = take_fences(term_key, 1, ARGV[8])
if type(term) == 'table' then
  return term
end
local regressed = 0
if term <= seen then
  regressed = term
  term = seen + 1
  redis.call('SET', term_key, decimal(term), 'PX', ARGV[8])
end
redis.call('SET', leader_key, id, 'PX', ttl)
redis.call('DEL', details_key)
redis.call('HSET', details_key, 'id', id, 'term', decimal(term), 'since', now, 'claim', claim)
redis.call('PEXPIRE', details_key, ttl)
redis.call('PUBLISH', channel, 'elected ' .. decimal(term) .. ' ' .. id)
return {1, term, regressed}
