import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.ts';
import { saysItHasBody } from './body-presence.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The body is JSON-RPC: a value JSON cannot carry as sent is the fault of the one call holding it (-32602 at
     * that call's position, the others of a batch answered), checked by the route per call (src/rpc/params-shape.ts)
     * as /v1/rpc does, not a 400 refusing the whole request.
     */
    jsonRpcBody?: boolean;
  }
}

/**
 * Rules every REST request's input follows, whatever its route: checked once here, before the route's
 * schema, so that no handler, store or Postgres sees what none of them can take (Postgres refuses NUL
 * in text, and an unpaired surrogate would be stored as U+FFFD: silently changed data).
 */

type JsonSchema = { type?: unknown; minimum?: number; maximum?: number; properties?: Record<string, JsonSchema> };

const unpairedSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be taken as text, or undefined when it can. */
function textProblem(value: string): string | undefined {
  if (value.includes('\0')) return 'must not contain NUL characters (U+0000)';
  if (unpairedSurrogate.test(value)) return 'must be valid Unicode text (it has an unpaired UTF-16 surrogate)';
  return undefined;
}

/** Where a value sits in the body: a link to its parent's place, so a deep body costs no path copies. */
interface Place {
  readonly parent: Place | undefined;
  readonly key: string | number;
}

const maxPathName = 200;

/** `config.addresses[0]` from the innermost place out. */
function pathName(place: Place | undefined): string {
  const parts: (string | number)[] = [];
  for (let at = place; at !== undefined; at = at.parent) parts.push(at.key);
  let name = '';
  for (const part of parts.reverse()) {
    name += typeof part === 'number' ? `[${part}]` : name === '' ? part : `.${part}`;
    // A path thousands of levels deep is named by its start: the answer stays small.
    if (name.length > maxPathName) return `${name.slice(0, maxPathName)}…`;
  }
  return name;
}

/**
 * No body of ours nests deeper than a few levels; code that walks a body recursively (the Idempotency-Key's canonical
 * form, Ajv) would overflow the stack on thousands, so past this a body is refused, whatever the route.
 */
export const maxBodyDepth = 64;
const tooDeep = `is nested more than ${maxBodyDepth} levels deep`;

// Past 2^53 - 1 a JSON number is rounded when parsed (9007199254740993 reads as ...992): refused rather than changed.
const unsafeNumber =
  'is a number past 9007199254740991, which JSON numbers cannot carry exactly; send a large value as a decimal string where the field takes one';

/**
 * The first string (value or key) of a parsed JSON body that is not text, or number that is not finite
 * (`1e400` parses as Infinity) or not exact (past 2^53 - 1), or a value nested past `maxBodyDepth`, with its path. Walked
 * without recursion: a body nested thousands of levels deep is read in time linear in its size, as any other.
 */
export function findBadJsonValue(body: unknown): { path: string; problem: string } | undefined {
  const values: unknown[] = [body];
  const places: (Place | undefined)[] = [undefined];
  const depths: number[] = [0];
  while (values.length > 0) {
    const value = values.pop();
    const place = places.pop();
    const depth = depths.pop()!;
    if (depth > maxBodyDepth) return { path: pathName(place), problem: tooDeep };
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { path: pathName(place), problem };
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return { path: pathName(place), problem: 'is a number too large to represent' };
      if (Math.abs(value) > Number.MAX_SAFE_INTEGER) return { path: pathName(place), problem: unsafeNumber };
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) {
        values.push(value[index]);
        places.push({ parent: place, key: index });
        depths.push(depth + 1);
      }
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index]!;
        const problem = textProblem(key);
        if (problem) return { path: pathName({ parent: place, key }), problem: `has a field name that ${problem}` };
        values.push((value as Record<string, unknown>)[key]);
        places.push({ parent: place, key });
        depths.push(depth + 1);
      }
    }
  }
  return undefined;
}

const integerText = /^[+-]?\d{1,15}$/;
const numberText = /^[+-]?(\d{1,15}(\.\d{1,15})?|\.\d{1,15})$/;

function rangeText(schema: JsonSchema): string {
  const { minimum, maximum } = schema;
  if (minimum !== undefined && maximum !== undefined) return ` from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return ` >= ${minimum}`;
  if (maximum !== undefined) return ` <= ${maximum}`;
  return '';
}

/**
 * A path or query value: text, given once (unless its schema is a list), and a plain decimal where its
 * schema wants a number (the validator's coercion would take `1e400` as Infinity and `0x10` as 16).
 */
function checkUrlValue(where: string, name: string, value: unknown, schema: JsonSchema | undefined): void {
  if (Array.isArray(value)) {
    if (schema?.type !== 'array') throw new AppError('invalid_request', `${where} '${name}' is given more than once`);
    for (const item of value) checkUrlValue(where, name, item, undefined);
    return;
  }
  if (typeof value !== 'string') return;
  const problem = textProblem(value);
  if (problem) throw new AppError('invalid_request', `invalid ${where} '${name}': ${problem}`);
  if (schema?.type === 'integer' && !integerText.test(value)) {
    throw new AppError('invalid_request', `invalid ${where} '${name}': must be an integer${rangeText(schema)}`);
  }
  if (schema?.type === 'number' && !numberText.test(value)) {
    throw new AppError('invalid_request', `invalid ${where} '${name}': must be a decimal number${rangeText(schema)}`);
  }
}

function checkUrlValues(where: string, values: unknown, schema: JsonSchema | undefined): void {
  if (values === null || typeof values !== 'object') return;
  for (const [name, value] of Object.entries(values)) {
    const problem = textProblem(name);
    if (problem) throw new AppError('invalid_request', `a ${where} name ${problem}`);
    // A wildcard's value is the rest of the path (static files, or a path no route takes).
    if (name === '*') checkUrlValue('URL', 'path', value, undefined);
    else checkUrlValue(where, name, value, schema?.properties?.[name]);
  }
}

/** `preValidation`: path parameters, query values and every string of a JSON body, for every route. */
export async function checkRequestInput(request: FastifyRequest): Promise<void> {
  // No route: the not-found handler authenticates the request (as for any /v1 path) before its 404.
  if (request.is404) return;
  const schema = request.routeOptions.schema as Record<string, JsonSchema | undefined> | undefined;
  checkUrlValues('path parameter', request.params, schema?.params);
  checkUrlValues('query parameter', request.query, schema?.querystring);
  // A chunked body on a route that takes none is read (it may be empty: no body, see json-body.ts).
  if (schema !== undefined && schema.body === undefined && request.body !== undefined) throw takesNoBody(request);
  // A string body is a route's own raw text (JSON-RPC), read by that route; so is a parsed JSON-RPC body.
  if (request.body !== null && typeof request.body === 'object' && request.routeOptions.config.jsonRpcBody !== true) {
    const bad = findBadJsonValue(request.body);
    if (bad) {
      const where = bad.path === '' ? 'the body' : `body '${bad.path}'`;
      throw new AppError('invalid_request', `invalid ${where}: ${bad.problem}`);
    }
  }
}

function takesNoBody(request: FastifyRequest): AppError {
  return new AppError('invalid_request', `${request.method} ${request.routeOptions.url} takes no body; send it without one`);
}

/**
 * `preParsing`: a route that declares no body in its schema ignores an empty one whatever its Content-Type (clients
 * often send `application/json` with nothing), and refuses a body it would otherwise drop unread. A chunked JSON body
 * is read first: empty, it is no body (checked in `checkRequestInput`).
 */
export async function refuseUnexpectedBody(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  // A route without any schema declares nothing about its body: left to read it as it will.
  const { schema } = request.routeOptions;
  if (request.is404 || schema === undefined || schema.body !== undefined) return;
  const { headers } = request;
  if (!saysItHasBody(headers)) {
    delete headers['content-type'];
    return;
  }
  const chunked = headers['transfer-encoding'] !== undefined;
  if (chunked && headers['content-length'] === undefined && headers['content-type']?.startsWith('application/json')) return;
  throw takesNoBody(request);
}
