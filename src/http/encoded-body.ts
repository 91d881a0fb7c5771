import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.ts';
import { saysItHasBody } from './body-presence.ts';

/** Whether the request has a body it says is compressed (`Content-Encoding` other than `identity`). */
export function hasEncodedBody(headers: IncomingHttpHeaders): boolean {
  const encoding = headers['content-encoding']?.trim().toLowerCase();
  if (encoding === undefined || encoding === '' || encoding === 'identity') return false;
  return saysItHasBody(headers);
}

/**
 * `preParsing`: a compressed request body is refused with 415 naming the header, not read as bytes
 * that then fail as "not valid JSON". Answers may be compressed (response-compression.ts); requests are
 * small and read as sent, as the providers read them.
 */
export async function refuseEncodedBody(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  if (!hasEncodedBody(request.headers)) return;
  const encoding = String(request.headers['content-encoding']).trim();
  throw new AppError(
    'unsupported_media_type',
    `invalid header 'content-encoding': request bodies are read as sent, '${encoding}' is not supported; send the body uncompressed`,
  );
}
