import type { FastifyReply, FastifyRequest } from 'fastify';
import { sessionIdleMs } from './session-store.ts';

export const sessionCookieName = 'blockyard_session';

/** The session token from the request's Cookie header, if any. */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === sessionCookieName) return value.join('=') || undefined;
  }
  return undefined;
}

function cookie(value: string, maxAgeS: number, secure: boolean): string {
  return `${sessionCookieName}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeS}${secure ? '; Secure' : ''}`;
}

/** HttpOnly, SameSite=Lax, and Secure in production (a development server is plain http on loopback). */
export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean): void {
  reply.header('set-cookie', cookie(token, Math.floor(sessionIdleMs / 1000), secure));
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.header('set-cookie', cookie('', 0, secure));
}
