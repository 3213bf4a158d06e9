-- Inbox housekeeping shared by the scripts that remove entries (collect, claim, acknowledge, quarantine).
-- drop_if_empty(key): an empty tier stream is deleted (an idle session keeps no keys) once the server clock
-- has passed the millisecond of the stream's newest id: a stream recreated by XADD * numbers from the
-- current millisecond, so deleting it earlier would let the next entry reuse an id already handed out
-- (a stream emptied within that millisecond is deleted by a later call).
-- forget_claims(claims, streams): the claims hash is deleted once every tier stream of the session is
-- empty (the fields of entries a collect removed go with it).
-- raw_of(fields, name): a stream entry's raw form for the quarantine: the value of field `name`, else (a
-- foreign entry) every field as one JSON object.
-- token_le(a, b): decimal token texts compared as numbers (beyond the 2^53 a Lua number holds exactly).
local function last_id_millis(key)
  local info = redis.call('XINFO', 'STREAM', key)
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then
      return tonumber(string.match(info[i + 1], '^(%d+)'))
    end
  end
  return nil
end

local function drop_if_empty(key)
  if redis.call('XLEN', key) == 0 and redis.call('EXISTS', key) == 1 then
    local newest = last_id_millis(key)
    if newest ~= nil and newest < now_millis() then
      redis.call('DEL', key)
    end
  end
end

local function forget_claims(claims, streams)
  for _, key in ipairs(streams) do
    if redis.call('XLEN', key) > 0 then
      return
    end
  end
  redis.call('DEL', claims)
end

local function raw_of(fields, name)
  local all = {}
  for j = 1, #fields, 2 do
    if fields[j] == name then
      return fields[j + 1]
    end
    all[fields[j]] = fields[j + 1]
  end
  return cjson.encode(all)
end

local function token_le(a, b)
  return #a < #b or (#a == #b and a <= b)
end
