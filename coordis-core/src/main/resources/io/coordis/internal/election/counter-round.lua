-- One round of the incumbent-favouring counter election, exactly as the classic master() function does
-- it with INCR and EXPIRE (so clients running that function on the same key take part in the same
-- election), in one script so that a new leader's key never lives without its expiry.
--
--   value = INCR key; 1 means nobody led: the caller leads. A caller that led (remembered > 0) keeps
--   leading while remembered <= value, and then remembers value; remembered > value means Redis was
--   reset or failed over: it steps down (remembers 0). The leader refreshes EXPIRE key <term>.
--
-- KEYS[1]  the election key, exactly as the caller named it (the classic code calls it master_selector)
-- ARGV[1]  the value the caller remembers from its last round (local_selector); 0: it does not lead
-- ARGV[2]  the term in whole seconds, the EXPIRE the leader refreshes (the classic code uses 20)
--
-- Returns {leads, value, remembered}  leads 1/0; value as INCR answered; remembered: what the caller
--                                     must remember for its next round (0 unless it leads)
-- Errors   the INCR error when the key holds something other than an integer
local key = KEYS[1]
local remembered, term = tonumber(ARGV[1]), ARGV[2]

local value = redis.call('INCR', key)
if value == 1 then
  remembered = 1
elseif remembered > 0 then
  if remembered > value then
    remembered = 0
  else
    remembered = value
  end
end
if remembered > 0 then
  redis.call('EXPIRE', key, term)
  return {1, value, remembered}
end
return {0, value, 0}
