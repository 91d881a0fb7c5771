import type { IncomingMessage } from 'node:http';
import { AppError } from '../core/errors.ts';

/** RFC 6455 section 4.1: the client's nonce is 16 random bytes in base64. */
const handshakeKey = /^[+/0-9A-Za-z]{22}==$/;

/**
 * Why an upgrade request is not a WebSocket opening handshake (RFC 6455 section 4.2.1), or undefined
 * when it is one. Checked before the key, so a request the `ws` library would refuse with a plain-text
 * 400 (after the upgrade had been authorized and charged) gets the spec's error object instead, and
 * spends nothing. An unsupported version names the one served in `Sec-WebSocket-Version` (section 4.4).
 */
export function handshakeProblem(request: IncomingMessage): AppError | undefined {
  const upgrade = request.headers.upgrade?.trim() ?? '';
  if (upgrade.toLowerCase() !== 'websocket') {
    return new AppError(
      'invalid_request',
      `invalid header 'Upgrade': this server switches only to 'websocket' (at /v1/ws/{chain}/{network}), not to '${upgrade.slice(0, 40)}'; send other requests without an Upgrade header`,
    );
  }
  if (request.method !== 'GET') {
    return new AppError('method_not_allowed', `a WebSocket opening handshake is a GET, not a ${request.method}`, {
      headers: { allow: 'GET' },
    });
  }
  const key = request.headers['sec-websocket-key'];
  if (key === undefined || !handshakeKey.test(key.trim())) {
    return new AppError(
      'invalid_request',
      "invalid header 'Sec-WebSocket-Key': must be 16 random bytes in base64 (24 characters ending in '==')",
    );
  }
  const version = request.headers['sec-websocket-version']?.trim();
  if (version !== '13' && version !== '8') {
    return new AppError('invalid_request', "invalid header 'Sec-WebSocket-Version': this server speaks version 13", {
      headers: { 'sec-websocket-version': '13' },
    });
  }
  return undefined;
}
