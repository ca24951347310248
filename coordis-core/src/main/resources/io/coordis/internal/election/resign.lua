-- Resign a leadership: delete the leader key only if it still holds the caller's id and term, then
-- announce it, so that waiting candidates campaign at once instead of after the TTL.
--
-- Keys and field names: io.coordis.election.ElectionLayout.
--
-- KEYS[1]  leader key
-- KEYS[2]  leadership details hash (derived, same slot)
-- ARGV[1]  candidate id
-- ARGV[2]  the term being resigned; ignored with ARGV[4]
-- ARGV[3]  channel on which the end of a leadership is announced ("resigned <term> <id>")
-- ARGV[4]  optional: the claim of a campaign try whose answer was lost (see elect.lua); the leadership that
--          try won, if it still holds, is resigned whatever its term
--
-- Returns {1}  resigned: the leader key and its details are gone, candidates were notified
--         {0}  not the caller's leadership (any more): nothing was touched
local leader_key, details_key = KEYS[1], KEYS[2]
local id, term, channel, claim = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

if redis.call('GET', leader_key) ~= id then
  return {0}
end
if claim then
  if redis.call('HGET', details_key, 'claim') ~= claim then
    return {0}
  end
  term = redis.call('HGET', details_key, 'term')
elseif redis.call('HGET', details_key, 'term') ~= term then
  return {0}
end
redis.call('DEL', leader_key, details_key)
redis.call('PUBLISH', channel, 'resigned ' .. term .. ' ' .. id)
return {1}
