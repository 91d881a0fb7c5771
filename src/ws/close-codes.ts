/**
 * Close codes the WebSocket endpoint sends (listed in docs/errors.md). 1000-1015 are RFC 6455's;
 * 4000-4999 are for applications.
 */
export const wsCloseCodes = {
  /** The server is shutting down: reconnect (to another instance). */
  goingAway: 1001,
  /** A frame larger than the message limit (sent by the ws library itself on `maxPayload`). */
  messageTooBig: 1009,
  /** The key stopped working while the socket was open: revoked, its rotated-out secret's grace over, its signed request (JWT) expired. */
  keyRefused: 4001,
  /** The key changed so that this socket is no longer allowed: its origins or addresses, its scopes (rpc:read), its environment. */
  keyNotAllowed: 4003,
  /** The client did not read fast enough: its send buffer went over the limit. */
  slowConsumer: 4008,
} as const;
