import type { Budget } from './limiter.ts';

/**
 * The Redis side of `RateLimiter.consumeAll`: one script checks every budget and counts the request
 * in all of them or in none, atomically (Redis runs a script to completion before any other command),
 * on the server's clock like the single-budget script in redis-limiter.ts (same hashes, same checks).
 *
 * KEYS = per budget: its second hash {w, r, c}, then its day hash {w, r}
 * ARGV = compute units, then per budget: rps limit, cups limit, rpd limit (-1 = unlimited)
 * Returns { unix s, microseconds, then per budget: exceeded (0 none, 1 rps, 2 cups, 3 rpd), requests, cu, day requests }
 */
export const consumeBudgetsScript = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local sec = tonumber(t[1])
local day = math.floor(sec / 86400)
local cu = tonumber(ARGV[1])
local n = #KEYS / 2
local used, usedCu, usedDay, exceeded = {}, {}, {}, {}
local refused = false

for i = 1, n do
  local rps, cups, rpd = tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
  local s = redis.call('HMGET', KEYS[2 * i - 1], 'w', 'r', 'c')
  used[i], usedCu[i], usedDay[i] = 0, 0, 0
  if tonumber(s[1]) == sec then used[i], usedCu[i] = tonumber(s[2]) or 0, tonumber(s[3]) or 0 end
  local d = redis.call('HMGET', KEYS[2 * i], 'w', 'r')
  if tonumber(d[1]) == day then usedDay[i] = tonumber(d[2]) or 0 end
  local e = 0
  if rps >= 0 and used[i] + 1 > rps then e = 1
  elseif cups >= 0 and usedCu[i] + cu > cups then e = 2
  elseif rpd >= 0 and usedDay[i] + 1 > rpd then e = 3 end
  exceeded[i] = e
  if e ~= 0 then refused = true end
end

local reply = { sec, tonumber(t[2]) }
for i = 1, n do
  if not refused then
    local rps, cups, rpd = tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
    if rps >= 0 or cups >= 0 then
      used[i], usedCu[i] = used[i] + 1, usedCu[i] + cu
      redis.call('HSET', KEYS[2 * i - 1], 'w', sec, 'r', used[i], 'c', usedCu[i])
      redis.call('EXPIREAT', KEYS[2 * i - 1], sec + 2)
    end
    if rpd >= 0 then
      usedDay[i] = usedDay[i] + 1
      redis.call('HSET', KEYS[2 * i], 'w', day, 'r', usedDay[i])
      redis.call('EXPIREAT', KEYS[2 * i], (day + 1) * 86400 + 60)
    end
  end
  reply[#reply + 1] = exceeded[i]
  reply[#reply + 1] = used[i]
  reply[#reply + 1] = usedCu[i]
  reply[#reply + 1] = usedDay[i]
end
return reply
`;

/**
 * The script's KEYS: the first budget's hashes are named as for `consume` (`blockyard:rl:{id}:s`), the
 * others' carry the first's hash tag (`blockyard:rl:{acct_1}:key:k_1:s`) so one script touches one Cluster slot.
 */
export function budgetKeys(prefix: string, budgets: readonly Budget[]): string[] {
  const tag = `${prefix}{${budgets[0]!.id}}`;
  return budgets.flatMap((budget, i) => {
    const base = i === 0 ? tag : `${tag}:${budget.id}`;
    return [`${base}:s`, `${base}:d`];
  });
}

/** The script's ARGV. */
export function budgetArgs(budgets: readonly Budget[], computeUnits: number): number[] {
  return [computeUnits, ...budgets.flatMap(({ limits }) => [limits.rps ?? -1, limits.cups ?? -1, limits.rpd ?? -1])];
}
