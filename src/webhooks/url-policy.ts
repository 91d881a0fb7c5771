import { isIP } from 'node:net';
import { invalidRequest } from '../core/errors.ts';
import { refusedAddressReason } from '../nfts/metadata/address-policy.ts';

export type Mode = 'development' | 'production';

/** Longest URL accepted. */
const maxUrlLength = 2048;

/**
 * Checks a webhook URL when it is given (create and update): https only, and no private, loopback or
 * link-local host, unless the service runs in development mode, which allows http and loopback.
 * Host names are checked again after DNS resolution on every delivery (send-delivery.ts).
 */
export function assertWebhookUrl(input: string, mode: Mode, param = 'url'): string {
  if (input.length > maxUrlLength) throw invalidRequest(param, `is longer than ${maxUrlLength} characters`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalidRequest(param, 'is not a URL');
  }
  if (url.protocol !== 'https:' && !(mode === 'development' && url.protocol === 'http:')) {
    throw invalidRequest(param, mode === 'development' ? 'must be an http or https URL' : 'must be an https URL');
  }
  if (url.username || url.password) throw invalidRequest(param, 'must not carry a user name or password');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const reason = isIP(host) ? refusedAddressReason(host, mode) : refusedHostName(host, mode);
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
