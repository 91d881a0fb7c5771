import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.ts';

type BodyParser = (request: FastifyRequest, body: Buffer, done: (error: Error | null, body?: unknown) => void) => void;

/**
 * The JSON body parser of every REST route: Fastify's own (prototype poisoning refused), after a check
 * that the bytes are UTF-8. Decoding invalid bytes would turn them into U+FFFD, silently changing what
 * the client sent. Only `application/json` bodies are read: Fastify's `text/plain` parser is removed, so
 * a JSON route answers a body of any other type with 415 as it does for `multipart/form-data`.
 * An empty body is no body, whatever its Content-Type: HTTP wrappers that always send
 * `Content-Type: application/json` must be able to call a route that takes none (a DELETE), and a route
 * whose body is optional takes it as absent; a route that needs one says which field is missing.
 */
export function readJsonBodiesStrictly(app: FastifyInstance): void {
  const parse = strictJsonParser(app);
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) =>
    parse(request, body as Buffer, done),
  );
}

/**
 * The same parser for every Content-Type, in `app`'s own scope: for a JSON-RPC endpoint, which a client
 * may call without the header (`curl -d` sends a form type) as the providers allow.
 */
export function readJsonWhateverTheType(app: FastifyInstance, bodyLimit: number): void {
  const parse = strictJsonParser(app);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (request, body, done) => parse(request, body as Buffer, done));
}

function strictJsonParser(app: FastifyInstance): BodyParser {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return (request, bytes, done) => {
    if (bytes.length === 0) {
      done(null, undefined);
      return;
    }
    if (!isUtf8(bytes)) {
      done(new AppError('invalid_request', 'the body is not valid UTF-8'), undefined);
      return;
    }
    parseJson(request, bytes.toString('utf8'), done);
  };
}
