-- Extend the locks of one multi-lock acquisition together, with their holder details, only if every name still holds
-- our token (compare-and-pexpire, all or none).
--
-- KEYS[1..]  two keys per name, name i's at 2i-1 and 2i: its lock key and its holder details hash
-- ARGV[1]     token of the acquisition being extended
-- ARGV[2]     new ttl in milliseconds (> 0), counted from now
--
-- Returns {1}  extended every name
--         {0}  some name is not ours any more: nothing was touched (the lease is lost; release frees the others)
local token, ttl = ARGV[1], ARGV[2]
local count = #KEYS / 2

for i = 1, count do
  if redis.call('GET', KEYS[2 * i - 1]) ~= token then
    return {0}
  end
end
for i = 1, count do
  redis.call('PEXPIRE', KEYS[2 * i - 1], ttl)
  redis.call('PEXPIRE', KEYS[2 * i], ttl)
end
return {1}
