-- Release the locks of one multi-lock acquisition (multi-acquire.lua): each name that still holds our token is
-- deleted with its holder details, as release.lua does for one, and its waiting clients are woken.
--
-- KEYS[1..]  three keys per name, name i's at 3i-2 to 3i: its lock key; its waiter marker ({name}:released as a
--             key), which is also its release channel; its holder details hash
-- ARGV[1]     token of the acquisition being released
--
-- The marker is deleted with the lock in one DEL: a second deleted key means somebody may be waiting, and only
-- then is the release published on the name's channel.
--
-- Returns {released}  how many names this call released (0: none was ours any more)
local token = ARGV[1]
local released = 0

for i = 1, #KEYS / 3 do
  local lock, marker, holder_key = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  if redis.call('GET', lock) == token then
    redis.call('DEL', holder_key)
    if redis.call('DEL', lock, marker) > 1 then
      redis.call('PUBLISH', marker, 'released')
    end
    released = released + 1
  end
end
return {released}
