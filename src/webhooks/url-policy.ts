import { isIP } from 'node:net';
import { type PrivateDestinations, privateDestinations } from '../config/private-destinations.ts';
import { refusedAddressReason } from '../core/address-policy.ts';
import { invalidRequest } from '../core/errors.ts';

export type Mode = 'development' | 'production';

/** Longest URL accepted. */
const maxUrlLength = 2048;

/**
 * Checks a webhook URL when it is given (create and update): https only, and no private, loopback or
 * link-local host, unless the service runs in development mode, which allows http and loopback.
 * Host names are checked again after DNS resolution on every delivery (send-delivery.ts).
 * An address inside `webhooks.private_destinations` is allowed in any mode, over http too; a host
 * name may then be any name (it may resolve into them: checked at delivery), with https in production.
 */
export function assertWebhookUrl(
  input: string,
  mode: Mode,
  param = 'url',
  allowed: PrivateDestinations = privateDestinations(),
): string {
  if (input.length > maxUrlLength) throw invalidRequest(param, `is longer than ${maxUrlLength} characters`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalidRequest(param, 'is not a URL');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const inPrivateDestination = isIP(host) !== 0 && allowed.allows(host);
  if (url.protocol !== 'https:' && !((mode === 'development' || inPrivateDestination) && url.protocol === 'http:')) {
    throw invalidRequest(param, mode === 'development' ? 'must be an http or https URL' : 'must be an https URL');
  }
  if (url.username || url.password) throw invalidRequest(param, 'must not carry a user name or password');
  if (inPrivateDestination) return url.toString();
  const reason = isIP(host) ? refusedAddressReason(host, mode) : allowed.size > 0 ? undefined : refusedHostName(host, mode);
  if (reason)
    throw invalidRequest(
      param,
      `${reason}; webhooks go to public endpoints${mode === 'production' ? '' : ' (development mode also allows loopback)'}`,
    );
  return url.toString();
}

function refusedHostName(host: string, mode: Mode): string | undefined {
  const lower = host.toLowerCase().replace(/\.$/, '');
  const local = lower === 'localhost' || lower.endsWith('.localhost');
  if (local) return mode === 'development' ? undefined : `host ${host} is loopback`;
  if (lower.endsWith('.local') || lower.endsWith('.internal') || !lower.includes('.')) return `host ${host} is not a public name`;
  return undefined;
}
