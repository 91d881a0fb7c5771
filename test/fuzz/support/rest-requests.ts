import fc from 'fast-check';
import type { Operation, OperationParameter } from './operations.ts';
import { queryAttacks } from './query-attacks.ts';
import {
  boundaryNumbers,
  type Hints,
  hostileString,
  type JsonSchema,
  validObject,
  validValue,
  wrongType,
} from './schema-values.ts';

/** An HTTP request as sent on the wire: the path is raw (not normalised), the body bytes exact. */
export interface FuzzRequest {
  method: string;
  /** Path and query string, exactly as written on the request line. */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What was broken, for the counterexample's reader. */
  broken: string;
}

/** Path parameter values that attack the router, the decoder and the database. */
const hostilePathSegments = [
  '..',
  '%2e%2e',
  '..%2f..%2fpackage.json',
  '%5c..%5c..%5cpackage.json',
  '%00',
  'wh_%00',
  '%ff',
  '%ED%A0%80',
  '%C0%AE%C0%AE',
  '%2F',
  '%',
  '%zz',
  'x'.repeat(10_000),
  'a'.repeat(101),
  '%F0%9F%92%A9',
  "'%3B--",
  `0x${'f'.repeat(40)}`,
  '-1',
];

const hostileQueryValues = [
  '',
  '-1',
  '0',
  '1.5',
  '1e30',
  '99999999999999999999',
  '9007199254740993',
  'abc',
  '%00',
  '%ff',
  'true',
  '[]',
  'a'.repeat(4000),
];

type BodyMutation =
  | { kind: 'valid' }
  | { kind: 'missing' | 'extra'; at: string[] }
  | { kind: 'replace'; at: string[]; value: unknown; what: string }
  | { kind: 'raw'; bytes: Buffer; what: string }
  | { kind: 'content-type'; type: string };

interface Plan {
  pathValues: Record<string, string>;
  query: [string, string][];
  /** Query text sent as written, after `query` (query-attacks.ts). */
  rawQuery?: string;
  body?: Record<string, unknown>;
  bodyMutation: BodyMutation;
  broken: string;
}

/** Property paths of an object schema, up to two levels, with their schemas. */
function propertyPaths(schema: JsonSchema, prefix: string[] = []): { at: string[]; schema: JsonSchema; required: boolean }[] {
  const found: { at: string[]; schema: JsonSchema; required: boolean }[] = [];
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const at = [...prefix, name];
    found.push({ at, schema: child, required: (schema.required ?? []).includes(name) });
    if (prefix.length === 0 && child.properties) found.push(...propertyPaths(child, at));
  }
  return found;
}

function asQueryText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A valid request's parts. `sendHinted`: path parameters the hints know take only their values, and every
 * scalar query parameter they know is sent (the NFT v3 routes' `owner`, `contractAddress`, `tokenId` are
 * required by the route, not by their schema).
 */
function validPlanFor(operation: Operation, hints: Hints, sendHinted = false): fc.Arbitrary<Plan> {
  const path = operation.parameters.filter((p) => p.in === 'path');
  const query = operation.parameters.filter((p) => p.in === 'query');
  const pathRecord: Record<string, fc.Arbitrary<string>> = {};
  for (const p of path) {
    const hinted = sendHinted ? hints[p.name] : undefined;
    pathRecord[p.name] = (hinted ? fc.constantFrom(...hinted) : validValue(p.schema, hints, p.name)).map(asQueryText);
  }
  // A list is sent as clients send one: the name repeated, once per item.
  const queryEntries = query.map((p) => {
    const entries = validValue(p.schema, hints, p.name).map((v) =>
      (Array.isArray(v) ? v : [v]).map((item): [string, string] => [p.name, asQueryText(item)]),
    );
    const always = sendHinted && hints[p.name] !== undefined && p.schema.type !== 'array';
    return always ? entries : fc.option(entries, { nil: undefined, freq: p.required ? 10 : 2 });
  });
  return fc.record({
    pathValues: fc.record(pathRecord),
    query: fc.tuple(...queryEntries).map((entries) => entries.flatMap((e) => e ?? [])),
    body: operation.body ? validObject(operation.body, hints) : fc.constant(undefined),
    bodyMutation: fc.constant<BodyMutation>({ kind: 'valid' }),
    broken: fc.constant('nothing'),
  });
}

function pathMutation(params: OperationParameter[]) {
  return fc.record({ name: fc.constantFrom(...params.map((p) => p.name)), raw: fc.constantFrom(...hostilePathSegments) });
}

function queryMutation(params: OperationParameter[]) {
  const names = params.map((p) => p.name);
  return fc.oneof(
    fc.record({
      kind: fc.constant('value' as const),
      name: fc.constantFrom(...names),
      value: fc.constantFrom(...hostileQueryValues),
    }),
    fc.record({
      kind: fc.constant('duplicate' as const),
      name: fc.constantFrom(...names),
      value: fc.constantFrom('1', '2', 'x'),
    }),
    fc.record({ kind: fc.constant('missing' as const), name: fc.constantFrom(...names), value: fc.constant('') }),
  );
}

function bodyMutation(schema: JsonSchema): fc.Arbitrary<BodyMutation> {
  const props = propertyPaths(schema);
  const options: (fc.Arbitrary<BodyMutation> | fc.WeightedArbitrary<BodyMutation>)[] = [
    fc.constant({ kind: 'extra', at: ['unexpected_field'] } as const),
    fc.constantFrom(
      ...[
        ['{', 'truncated JSON'],
        ['{"a":1,}', 'trailing comma'],
        ['{"a":NaN}', 'NaN'],
        ['', 'empty body'],
        ['null', 'null body'],
        ['[]', 'array body'],
        ['"text"', 'string body'],
        ['123', 'number body'],
        ['{"a":1}garbage', 'trailing garbage'],
        ['\u0000', 'NUL body'],
      ].map(([text, what]): BodyMutation => ({ kind: 'raw', bytes: Buffer.from(text!), what: what! })),
    ),
    fc
      .constantFrom(
        Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0x22, 0x7d]),
        Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
        Buffer.from([0xed, 0xa0, 0x80]),
      )
      .map((bytes): BodyMutation => ({ kind: 'raw', bytes, what: 'invalid UTF-8 bytes' })),
    fc
      .constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/xml',
        'application/json, text/plain',
        '',
      )
      .map((type): BodyMutation => ({ kind: 'content-type', type })),
  ];
  if (props.length > 0) {
    const prop = fc.constantFrom(...props);
    const required = props.filter((p) => p.required);
    if (required.length > 0) options.push(fc.constantFrom(...required).map((p): BodyMutation => ({ kind: 'missing', at: p.at })));
    options.push(
      prop.chain((p) =>
        wrongType(p.schema).map((value): BodyMutation => ({ kind: 'replace', at: p.at, value, what: 'wrong type' })),
      ),
      prop.chain((p) =>
        hostileString.map((value): BodyMutation => ({ kind: 'replace', at: p.at, value, what: 'hostile string' })),
      ),
      prop.chain((p) =>
        fc
          .constantFrom(...boundaryNumbers(p.schema))
          .map((value): BodyMutation => ({ kind: 'replace', at: p.at, value, what: 'number at a bound' })),
      ),
      prop.map((p): BodyMutation => ({ kind: 'extra', at: [...p.at.slice(0, -1), 'unexpected_field'] })),
    );
  }
  return fc.oneof(...options);
}

function brokenPlanFor(operation: Operation, hints: Hints): fc.Arbitrary<Plan> {
  const valid = validPlanFor(operation, hints);
  const path = operation.parameters.filter((p) => p.in === 'path');
  const query = operation.parameters.filter((p) => p.in === 'query');
  const choices: fc.Arbitrary<Plan>[] = [];
  if (path.length > 0) {
    choices.push(
      fc.tuple(valid, pathMutation(path)).map(([plan, m]) => ({
        ...plan,
        pathValues: { ...plan.pathValues, [m.name]: `\u0001raw:${m.raw}` },
        broken: `path parameter ${m.name} = ${m.raw.slice(0, 40)}`,
      })),
    );
  }
  const queryTargets =
    query.length > 0 ? query : [{ name: 'page', in: 'query', required: false, schema: {} } as OperationParameter];
  choices.push(
    fc.tuple(valid, queryMutation(queryTargets)).map(([plan, m]) => {
      const others = plan.query.filter(([name]) => name !== m.name);
      const query: [string, string][] =
        m.kind === 'missing'
          ? others
          : m.kind === 'duplicate'
            ? [...others, [m.name, m.value], [m.name, `${m.value}0`]]
            : [...others, [m.name, m.value]];
      return { ...plan, query, broken: `query ${m.kind} ${m.name} = ${m.value.slice(0, 40)}` };
    }),
    fc.tuple(valid, fc.constantFrom('unknown_param', 'PAGE', 'page[]', '__proto__', 'constructor')).map(([plan, name]) => ({
      ...plan,
      query: [...plan.query, [name, '1']] as [string, string][],
      broken: `extra query parameter ${name}`,
    })),
    withQueryAttack(valid, query, hints),
  );
  if (operation.body) {
    choices.push(
      fc
        .tuple(valid, bodyMutation(operation.body))
        .map(([plan, m]) => ({ ...plan, bodyMutation: m, broken: `body: ${describe(m)}` })),
    );
  } else if (operation.method !== 'GET' && operation.method !== 'DELETE') {
    choices.push(
      valid.map((plan) => ({
        ...plan,
        bodyMutation: {
          kind: 'raw',
          bytes: Buffer.from('{"unexpected":true}'),
          what: 'a body where none is taken',
        } as BodyMutation,
        broken: 'a body where none is taken',
      })),
    );
  }
  return fc.oneof(...choices);
}

function describe(m: BodyMutation): string {
  switch (m.kind) {
    case 'valid':
      return 'valid';
    case 'missing':
    case 'extra':
      return `${m.kind} ${m.at.join('.')}`;
    case 'replace':
      return `${m.what} at ${m.at.join('.')}: ${JSON.stringify(m.value)?.slice(0, 60)}`;
    case 'raw':
      return m.what;
    case 'content-type':
      return `content type '${m.type}'`;
  }
}

function setAt(target: Record<string, unknown>, at: string[], value: unknown, remove = false): void {
  let node = target;
  for (const key of at.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = at[at.length - 1]!;
  if (remove) delete node[last];
  else node[last] = value;
}

function encodePathValue(value: string): string {
  return value.startsWith('\u0001raw:') ? value.slice(5) : encodeURIComponent(value);
}

function toRequest(operation: Operation, plan: Plan): FuzzRequest {
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodePathValue(plan.pathValues[name] ?? ''));
  const query = [
    ...plan.query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`),
    ...(plan.rawQuery === undefined ? [] : [plan.rawQuery]),
  ].join('&');
  const headers: Record<string, string> = {};
  let body: Buffer | undefined;
  const m = plan.bodyMutation;
  if (operation.body || m.kind === 'raw') {
    const value = structuredClone(plan.body ?? {});
    if (m.kind === 'missing') setAt(value, m.at, undefined, true);
    if (m.kind === 'extra') setAt(value, m.at, 'surprise');
    if (m.kind === 'replace') setAt(value, m.at, m.value);
    body = m.kind === 'raw' ? m.bytes : Buffer.from(JSON.stringify(value));
    const type = m.kind === 'content-type' ? m.type : 'application/json';
    if (type) headers['content-type'] = type;
  }
  return { method: operation.method, target: query ? `${path}?${query}` : path, headers, body, broken: plan.broken };
}

/** A valid plan with one hostile piece of query string in place of a parameter's valid entry (or beside them). */
function withQueryAttack(valid: fc.Arbitrary<Plan>, query: OperationParameter[], hints: Hints): fc.Arbitrary<Plan> {
  return fc.tuple(valid, queryAttacks(query, hints)).map(([plan, attack]) => ({
    ...plan,
    query: plan.query.filter(([name]) => name !== attack.replaces),
    rawQuery: attack.raw,
    broken: `query: ${attack.what}`,
  }));
}

/** Requests whose query string is hostile (names in another case, brackets, repeats, huge numbers, unicode, raw escapes). */
export function queryAttackRequests(operation: Operation, hints: Hints): fc.Arbitrary<FuzzRequest> {
  const query = operation.parameters.filter((p) => p.in === 'query');
  return withQueryAttack(validPlanFor(operation, hints, true), query, hints).map((plan) => toRequest(operation, plan));
}

/** Requests for one operation: one valid for every three broken. */
export function requestsFor(operation: Operation, hints: Hints): fc.Arbitrary<FuzzRequest> {
  return fc
    .oneof({ weight: 1, arbitrary: validPlanFor(operation, hints) }, { weight: 3, arbitrary: brokenPlanFor(operation, hints) })
    .map((plan) => toRequest(operation, plan));
}
