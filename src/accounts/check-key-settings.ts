import { importSPKI } from 'jose';
import { isAddress } from 'viem';
import { canonicalOrigin } from '../auth/restrictions/origin-patterns.ts';
import { canonicalAddressRange } from '../core/address-ranges.ts';
import { invalidRequest } from '../core/errors.ts';
import type { JwtPublicKey, KeyLimits, KeyRestrictions } from '../keys/key-settings.ts';
import { isKnownRpcMethod } from '../rpc/known-methods.ts';
import type { KeyRestrictionsInput } from './key-settings-schema.ts';

/**
 * What the schemas (key-settings-schema.ts) cannot say about a key's settings, checked entry by entry:
 * each bad one is a 400 naming it (`restrictions.ips[1]`). Returns the settings as stored: origins
 * in their canonical form, contracts in lower case, duplicates and empty lists dropped.
 */
export async function checkKeyRestrictions(input: KeyRestrictionsInput): Promise<KeyRestrictions> {
  const checked: KeyRestrictions = {};
  const origins = checkEntries('restrictions.origins', input.origins, canonicalOrigin);
  const ips = checkEntries('restrictions.ips', input.ips, canonicalAddressRange);
  const contracts = checkEntries('restrictions.contracts', input.contracts, canonicalContract);
  const methods = checkEntries('restrictions.methods', input.methods, knownMethod);
  if (origins.length > 0) checked.origins = origins;
  if (ips.length > 0) checked.ips = ips;
  if (contracts.length > 0) checked.contracts = contracts;
  if (methods.length > 0) checked.methods = methods;
  if (input.jwt !== undefined) {
    const jwt = await checkJwt(input.jwt);
    if (jwt.required || jwt.public_keys.length > 0) checked.jwt = jwt;
  }
  return checked;
}

/** A key's own limits as stored: a null or absent limit is no limit of the key's own (the account's alone). */
export function checkKeyLimits(input: KeyLimits): KeyLimits {
  const checked: KeyLimits = {};
  for (const name of ['rps', 'rpd', 'cups'] as const) {
    const value = input[name];
    if (value === null || value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1 || value > 1_000_000_000)
      throw invalidRequest(`limits.${name}`, 'must be an integer from 1 to 1000000000, or null');
    checked[name] = value;
  }
  return checked;
}

/** Each entry through `canonical` (which says what is wrong, or gives the stored form); duplicates once. */
function checkEntries(
  name: string,
  entries: string[] | undefined,
  canonical: (entry: string) => { value: string } | { problem: string },
): string[] {
  const seen = new Set<string>();
  (entries ?? []).forEach((entry, index) => {
    const result = canonical(entry);
    if ('problem' in result) throw invalidRequest(`${name}[${index}]`, result.problem);
    seen.add(result.value);
  });
  return [...seen];
}

/** A 20-byte hex address (a mixed-case one must carry a valid EIP-55 checksum), stored in lower case. */
export function canonicalContract(entry: string): { value: string } | { problem: string } {
  if (!/^0x[0-9a-fA-F]{40}$/.test(entry)) return { problem: `'${entry}' is not a contract address (0x and 40 hex digits)` };
  if (!isAddress(entry)) return { problem: `'${entry}' has a wrong EIP-55 checksum (mixed case); check the address` };
  return { value: entry.toLowerCase() };
}

function knownMethod(entry: string): { value: string } | { problem: string } {
  return isKnownRpcMethod(entry) ? { value: entry } : { problem: `'${entry}' is not a JSON-RPC method Blockyard serves` };
}

async function checkJwt(input: NonNullable<KeyRestrictionsInput['jwt']>): Promise<NonNullable<KeyRestrictions['jwt']>> {
  const publicKeys = input.public_keys ?? [];
  const required = input.required ?? false;
  if (required && publicKeys.length === 0)
    throw invalidRequest('restrictions.jwt.public_keys', 'list at least one public key when jwt.required is true');
  const ids = new Set<string>();
  const checked: JwtPublicKey[] = [];
  for (const [index, key] of publicKeys.entries()) {
    const at = `restrictions.jwt.public_keys[${index}]`;
    if (ids.has(key.id)) throw invalidRequest(`${at}.id`, `'${key.id}' is listed twice: each key needs its own id`);
    ids.add(key.id);
    const pem = key.pem.trim();
    try {
      await importSPKI(pem, key.alg);
    } catch {
      throw invalidRequest(`${at}.pem`, `does not parse as an SPKI public key (-----BEGIN PUBLIC KEY-----) for ${key.alg}`);
    }
    checked.push({ id: key.id, alg: key.alg, pem });
  }
  if ((input.single_use || input.bind_to_key) && checked.length === 0)
    throw invalidRequest(
      `restrictions.jwt.${input.single_use ? 'single_use' : 'bind_to_key'}`,
      'applies to signed requests: list at least one public key',
    );
  return {
    required,
    public_keys: checked,
    ...(input.single_use ? { single_use: true as const } : {}),
    ...(input.bind_to_key ? { bind_to_key: true as const } : {}),
  };
}
