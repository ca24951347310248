-- Read a string key that may be a lock or an election leader, with the keys Coordis keeps beside it, in
-- one atomic step and without changing anything (for ls and inspect). Reads only; no key is created.
--
-- Keys and field names: io.coordis.lock.LockLayout and io.coordis.election.ElectionLayout.
--
-- KEYS[1]  the key (a lock's or an election's name)
-- KEYS[2]  fencing counter {name}:fence      KEYS[3]  lock holder details {name}:holder (hash)
-- KEYS[4]  leadership details {name}:leader  KEYS[5]  term counter {name}:term
-- KEYS[6]  forced-unlock audit {name}:audit (list of JSON objects as force-unlock.lua writes them, newest first)
-- KEYS[7]  read holds {name}:readers (sorted set of token -> expiry, Unix ms)
-- KEYS[8]  read holds' details {name}:readers:details (hash)
-- ARGV[1]  how many audit entries to return, newest first (0: none)
-- ARGV[2]  at most this many bytes of the value are returned (> 0)
--
-- Returns {type, value or false, strlen, pttl, fence or false, holder, leadership, term or false, audit, now,
--          readers, reader details, writer waiting}
--         type      TYPE of KEYS[1]; for anything but 'string' and 'none' nothing else is read
--         value     the first ARGV[2] bytes of the value; strlen its full length
--         pttl      as PTTL answers it (-2: no key, -1: no expiry)
--         holder    flat field/value list of KEYS[3], only while its token field equals the value
--         leadership flat field/value list of KEYS[4], only while its id field equals the value
--         fence, term  the counters' values (false when absent or not strings)
--         audit     up to ARGV[1] entries of KEYS[6] (empty when absent or not a list), each decoded here
--                   (cjson) into a flat field/value list: raw, the entry as stored; then those of at and
--                   fence that are integers and those of by, action, reason and holder that are strings.
--                   An entry that is not a JSON object gives raw alone
--         now       the server's clock, Unix ms
--         readers   while the value is 'coordis:readers' (read holds of a read-write lock): flat token/expiry list
--                   of KEYS[7]'s live members, longest last; else empty
--         reader details  flat field/value list of KEYS[8] while readers are returned; else empty
--         writer waiting  ms left of the 'waiting-writer' mark in KEYS[3] (0: none)
local key, fence_key, holder_key, leader_key, term_key, audit_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local audit_count, max_bytes = tonumber(ARGV[1]), tonumber(ARGV[2])

local function typed(k, t)
  return redis.call('TYPE', k)['ok'] == t
end

-- Other programs may write the audit list too: what does not decode, or has another type, is left out.
local function audit_fields(raw)
  local fields = {'raw', raw}
  local ok, entry = pcall(cjson.decode, raw)
  if not ok or type(entry) ~= 'table' then
    return fields
  end
  for _, name in ipairs({'at', 'fence'}) do
    local v = entry[name]
    if type(v) == 'number' and v == math.floor(v) and math.abs(v) < 2^53 then
      table.insert(fields, name)
      table.insert(fields, v)
    end
  end
  for _, name in ipairs({'by', 'action', 'reason', 'holder'}) do
    if type(entry[name]) == 'string' then
      table.insert(fields, name)
      table.insert(fields, entry[name])
    end
  end
  return fields
end

local kind = redis.call('TYPE', key)['ok']
if kind ~= 'string' and kind ~= 'none' then
  return {kind}
end
local value, strlen = false, 0
if kind == 'string' then
  value = redis.call('GETRANGE', key, 0, max_bytes - 1)
  strlen = redis.call('STRLEN', key)
end
local fence = false
if typed(fence_key, 'string') then
  fence = redis.call('GET', fence_key)
end
local term = false
if typed(term_key, 'string') then
  term = redis.call('GET', term_key)
end
local holder = {}
if value and typed(holder_key, 'hash') and redis.call('HGET', holder_key, 'token') == value then
  holder = redis.call('HGETALL', holder_key)
end
local leadership = {}
if value and typed(leader_key, 'hash') and redis.call('HGET', leader_key, 'id') == value then
  leadership = redis.call('HGETALL', leader_key)
end
local audit = {}
if audit_count > 0 and typed(audit_key, 'list') then
  for i, raw in ipairs(redis.call('LRANGE', audit_key, 0, audit_count - 1)) do
    audit[i] = audit_fields(raw)
  end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local readers, reader_details = {}, {}
if value == 'coordis:readers' and typed(KEYS[7], 'zset') then
  readers = redis.call('ZRANGEBYSCORE', KEYS[7], '(' .. now, '+inf', 'WITHSCORES')
  if typed(KEYS[8], 'hash') then
    reader_details = redis.call('HGETALL', KEYS[8])
  end
end
local writer_waiting = 0
if typed(holder_key, 'hash') then
  writer_waiting = math.max(0, (tonumber(redis.call('HGET', holder_key, 'waiting-writer') or '0') or 0) - now)
end
return {kind, value, strlen, redis.call('PTTL', key), fence, holder, leadership, term, audit, now, readers,
  reader_details, writer_waiting}
