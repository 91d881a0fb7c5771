import fc from 'fast-check';

/** The part of JSON Schema the route schemas use (TypeBox output: no $ref, no pattern). */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  default?: unknown;
}

/** Values the service knows (ids of fixtures, the configured chain), by parameter or property name. */
export type Hints = Readonly<Record<string, readonly unknown[]>>;

const oneMiB = 1024 * 1024;

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (schema.type) return [schema.type];
  if (schema.properties) return ['object'];
  return [];
}

/** Values that satisfy `schema` (hint values first: random strings rarely name a real webhook). */
export function validValue(schema: JsonSchema, hints: Hints, name = ''): fc.Arbitrary<unknown> {
  const own = schemaValue(schema, hints);
  const hinted = hints[name];
  if (!hinted || hinted.length === 0) return own;
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...hinted) }, { weight: 1, arbitrary: own });
}

function schemaValue(schema: JsonSchema, hints: Hints): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => schemaValue(s, hints)));
  const types = typesOf(schema);
  if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(...types.map((type) => valueOfType(type, schema, hints)));
}

function valueOfType(type: string, schema: JsonSchema, hints: Hints): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      if (schema.format === 'email') return fc.emailAddress().filter((e) => e.length <= (schema.maxLength ?? 254));
      if (schema.format === 'date-time')
        return fc
          .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString());
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) });
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const item = schema.items ? validValue(schema.items, hints) : fc.jsonValue({ maxDepth: 1 });
      return fc.array(item, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
    }
    case 'object':
      return validObject(schema, hints);
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

export function validObject(schema: JsonSchema, hints: Hints): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  if (names.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) record[name] = validValue(properties[name]!, hints, name);
  return fc.record(record, { requiredKeys: schema.required ?? [] }) as fc.Arbitrary<Record<string, unknown>>;
}

/** Strings made to break things: empty, 1 MiB, NUL, lone surrogates, control and odd characters. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      ' ',
      '\uffff',
      '\u202e',
      '%00',
      '../../etc/passwd',
      '..\\..\\package.json',
      "' OR 1=1 --",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j probe is meant literally
      '${jndi:x}',
      '{{7*7}}',
      '<script>',
      '0x',
      '0xZZ',
      '-1',
      'NaN',
      'null',
      '1e400',
      '\r\nX-Injected: 1',
    ),
  },
  { weight: 1, arbitrary: fc.constant('a'.repeat(oneMiB)) },
  { weight: 1, arbitrary: fc.constant('a'.repeat(10_000)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
);

/** Numbers at and past a bound, and the classic overflow values. */
export function boundaryNumbers(schema: JsonSchema): unknown[] {
  const values: unknown[] = [0, -1, -0.5, 1.5, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, -1e308, Number.MIN_VALUE];
  for (const bound of [schema.minimum, schema.maximum]) {
    if (bound !== undefined) values.push(bound, bound - 1, bound + 1, bound + 0.5);
  }
  return values;
}

/** A value of a type the schema does not allow (null, a list, an object, a number for a string...). */
export function wrongType(schema: JsonSchema): fc.Arbitrary<unknown> {
  const allowed = new Set(typesOf(schema));
  const all: [string, unknown][] = [
    ['string', 'not-a-number'],
    ['integer', 12345],
    ['number', 1.25],
    ['boolean', true],
    ['null', null],
    ['array', [1, 'two', null]],
    ['object', { nested: { deep: [1] } }],
  ];
  const wrong = all.filter(([type]) => !allowed.has(type) && !(type === 'integer' && allowed.has('number')));
  return fc.constantFrom(...wrong.map(([, value]) => value));
}
