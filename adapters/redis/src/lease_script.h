// The Lua script that divides a fleet-wide limit in Redis, in one atomic step.
#pragma once

#include <string_view>

namespace stormguard::redis_internal {

// KEYS[1]: the limit's hash, "<prefix>:{<limit>}:demand", one field per
// instance: "<demand> <granted> <expiry ms>". ARGV: instance id, demand
// (calls/s), capacity (calls/s), lease length (ms). Returns {granted as a
// string (Redis would truncate a Lua number to an integer), instances}.
//
// Time is Redis's own (TIME): every expiry is written and compared on one
// clock, so the instances' clocks never meet and their skew does not
// matter. The client turns the lease into its own time as "lease length
// from when it sent the request", which errs on the short side.
//
// The rule is FairShares (stormguard/fleet/lease_store.h): water-filling by
// demand, capped by what the other instances' current grants leave free.
// An instance whose lease expired keeps, for two more lease lengths, what
// it may be spending on its own (min(demand, capacity / instances): silent
// instances, lease_store.h); then it is dropped here. The hash itself
// expires three lease lengths after the last refresh, so an abandoned limit
// leaves nothing behind. O(N log N) in the instances of this limit.
inline constexpr std::string_view kLeaseScript = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local id = ARGV[1]
local demand = math.max(tonumber(ARGV[2]) or 0, 0)
local capacity = tonumber(ARGV[3])
local lease = tonumber(ARGV[4])
local fields = redis.call('HGETALL', KEYS[1])
local entries = {}
for i = 1, #fields, 2 do
  local f = fields[i]
  if f ~= id then
    local d, g, e = string.match(fields[i + 1], '^(%S+) (%S+) (%S+)$')
    d, g, e = tonumber(d), tonumber(g), tonumber(e)
    if d == nil or g == nil or e == nil or e + 2 * lease <= now then
      redis.call('HDEL', KEYS[1], f)
    else
      entries[#entries + 1] = {d, g, e}
    end
  end
end
local static_share = capacity / (#entries + 1)
local demands = {demand}
local others = 0
for _, x in ipairs(entries) do
  local d, g, e = x[1], x[2], x[3]
  if e <= now then
    g = math.min(d, static_share)
    d = g
  end
  others = others + g
  demands[#demands + 1] = d
end
table.sort(demands)
local left = capacity
local water = math.huge
for k = 1, #demands do
  local level = left / (#demands - k + 1)
  if demands[k] > level then
    water = level
    break
  end
  left = left - demands[k]
end
local granted = math.max(0, math.min(demand, water, capacity - others))
redis.call('HSET', KEYS[1], id, string.format('%.17g %.17g %d', demand, granted, now + lease))
redis.call('PEXPIRE', KEYS[1], 3 * lease)
return {string.format('%.17g', granted), #demands}
)lua";

}  // namespace stormguard::redis_internal
