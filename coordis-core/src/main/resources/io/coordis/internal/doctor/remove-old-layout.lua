-- Delete one key of the old per-name layout if it is still a leftover and not in use
-- (coordis doctor --remove-old-layout). Which keys those are: io.coordis.doctor.OldLayout.
--
-- KEYS[1]  the leftover, derived from KEYS[2]: {name}:fence, {name}:term, {name}:holder, {name}:permits, ...
-- KEYS[2]  the key it was derived from (the lock, semaphore or election key), in the same cluster slot
-- ARGV[1]  how to tell that it is not in use:
--          'counter'  a plain integer without expiry: not needed, fencing numbers and terms are now taken
--                     from Redis's clock, far above it (a counter in use has an expiry)
--          'holder'   a hash without expiry: in use while KEYS[2] holds the token it names, or read holds
--          'idle'     without expiry: in use while KEYS[2] exists
--
-- Returns {1}  deleted
--         {0}  kept: gone, has an expiry now, has another shape, or is in use
-- Errors  unknown rule '<rule>'
local key, owner, rule = KEYS[1], KEYS[2], ARGV[1]

if redis.call('PTTL', key) ~= -1 then
  return {0}
end
local kind = redis.call('TYPE', key)['ok']
if rule == 'counter' then
  if kind ~= 'string' or not string.match(redis.call('GET', key), '^%-?%d+$') then
    return {0}
  end
elseif rule == 'holder' then
  if kind ~= 'hash' then
    return {0}
  end
  local owner_kind = redis.call('TYPE', owner)['ok']
  if owner_kind == 'string' then
    local current = redis.call('GET', owner)
    if current == redis.call('HGET', key, 'token') or current == 'coordis:readers' then
      return {0}
    end
  elseif owner_kind ~= 'none' then
    return {0}
  end
elseif rule == 'idle' then
  if redis.call('EXISTS', owner) == 1 then
    return {0}
  end
else
  return redis.error_reply("unknown rule '" .. tostring(rule) .. "'")
end
return {redis.call('DEL', key)}
