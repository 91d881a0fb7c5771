import { invalidRequest } from '../core/errors.ts';
import type { AddressChange } from './service.ts';
import { maxAddressesPerUpdate } from './webhook-addresses.ts';
import { maxWebhookAddresses, parseAddress } from './webhook-config.ts';

/**
 * The lists of an address update, checked: each a list of at most `maxAddressesPerUpdate` 0x
 * addresses (checksummed when mixed-case), lower-cased and without repeats. `names` are the body's
 * own names (`add`/`remove`, or Alchemy's `addresses_to_add`/`addresses_to_remove`), which a 400 names.
 */
export function parseAddressChange(
  body: Record<string, unknown>,
  names: { readonly add: string; readonly remove: string },
): AddressChange {
  const add = parseAddressList(body[names.add], names.add);
  const remove = parseAddressList(body[names.remove], names.remove);
  return { add, remove };
}

/** A webhook's whole new list (Alchemy's replace): required, at most `maxWebhookAddresses`, checked and without repeats. */
export function parseAddressReplacement(value: unknown, name: string): string[] {
  if (value === undefined || value === null) throw invalidRequest(name, 'is required: the whole new list (may be empty)');
  return parseAddressList(value, name, maxWebhookAddresses, 'a webhook watches');
}

function parseAddressList(
  value: unknown,
  name: string,
  max = maxAddressesPerUpdate,
  limitText = 'a call (call again for more)',
): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidRequest(name, 'must be a list of 0x addresses');
  if (value.length > max) {
    throw invalidRequest(name, `has ${value.length} addresses; at most ${max} ${limitText}`);
  }
  return [...new Set(value.map((item, index) => parseAddress(item, `${name}[${index}]`)))];
}

/** A page cursor of `GET /v1/webhooks/{id}/addresses`: the last address of the previous page. */
export function parseAddressCursor(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw invalidRequest(name, 'must be the next_cursor of the previous page');
  return value.toLowerCase();
}
