/** One failure of a JSON Schema check, as Ajv reports it (the fields read here). */
export interface SchemaIssue {
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** What each JSON type is called in a sentence ("must be a whole number"). */
const typeWords: Record<string, string> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

/**
 * The patterns our schemas use, in words: Ajv would print the regular expression itself. A pattern
 * missing here reads "is not in the expected format" (a test lists the patterns the routes use).
 */
const patternWords: Record<string, string> = {
  '^[0-9]{1,15}(\\.[0-9]{1,12})?$': 'must be an amount in digits with at most 12 decimals, like "12.50"',
  '^[0-9]+(\\.[0-9]+)?$': 'must be an amount in digits, like "12.50"',
  '^[0-9]{1,78}$': 'must be a whole number written in digits',
  '^0x[0-9a-fA-F]{40}$': 'must be an address: 0x and 40 hex digits',
  '^(0x[0-9a-fA-F]{40}|native)$': 'must be an address (0x and 40 hex digits) or "native"',
  '^0x[0-9a-fA-F]{64}$': 'must be 0x and 64 hex digits',
  '^0x[0-9a-fA-F]{64}(,0x[0-9a-fA-F]{64})*$': 'must be one or more private keys (0x and 64 hex digits), separated by commas',
  '^[0-9a-fA-F]{64}$': 'must be 64 hex digits',
  '^https?://': 'must be a URL starting with http:// or https://',
  '^https?://[^/?#]+/?$': 'must be a URL of a host only, like https://api.example.com',
  '^wss?://': 'must be a URL starting with ws:// or wss://',
  '^smtps?://': 'must be a URL starting with smtp:// or smtps://',
  '^rediss?://': 'must be a URL starting with redis:// or rediss://',
  '^postgres(ql)?://': 'must be a URL starting with postgres:// or postgresql://',
  '^[a-z0-9][a-z0-9-]{0,62}$': 'must be 1 to 63 lowercase letters, digits and dashes, starting with a letter or digit',
};

const formatWords: Record<string, string> = {
  'date-time': 'must be a date and time with a time zone, like 2026-12-01T00:00:00Z',
  date: 'must be a date, like 2026-12-01',
  email: 'must be an email address, like you@example.com',
  uri: 'must be a URL, like https://example.com/path',
  url: 'must be a URL, like https://example.com/path',
};

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

function typeProblem(type: unknown): string {
  const names = (Array.isArray(type) ? type : String(type).split(',')).map((name) => typeWords[String(name)] ?? String(name));
  return `must be ${names.join(' or ')}`;
}

function listOf(values: unknown): string {
  return (values as unknown[]).map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(', ');
}

/**
 * A schema failure in words a person would write, for after the name of what failed: "must not be
 * empty", "must be at most 200 characters long", "must be one of test, live". Not for `required` and
 * `additionalProperties`, which name a property of their own (the caller words those).
 * @example describeSchemaProblem({ keyword: 'minLength', params: { limit: 1 } }) // 'must not be empty'
 */
export function describeSchemaProblem(issue: SchemaIssue): string {
  const limit = Number(issue.params.limit);
  switch (issue.keyword) {
    case 'type':
      return typeProblem(issue.params.type);
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${plural(limit, 'character', 'characters')} long`;
    case 'maxLength':
      return `must be at most ${plural(limit, 'character', 'characters')} long`;
    case 'minItems':
      return limit === 1 ? 'must not be empty' : `must list at least ${plural(limit, 'entry', 'entries')}`;
    case 'maxItems':
      return `must list at most ${plural(limit, 'entry', 'entries')}`;
    case 'minProperties':
      return limit === 1 ? 'must not be empty: give at least one field' : `must have at least ${limit} fields`;
    case 'maxProperties':
      return `must have at most ${plural(limit, 'field', 'fields')}`;
    case 'uniqueItems':
      return `must not list the same value twice (entries ${Number(issue.params.j) + 1} and ${Number(issue.params.i) + 1} are the same)`;
    case 'minimum':
      return `must be at least ${issue.params.limit}`;
    case 'maximum':
      return `must be at most ${issue.params.limit}`;
    case 'exclusiveMinimum':
      return `must be more than ${issue.params.limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${issue.params.limit}`;
    case 'multipleOf':
      return `must be a multiple of ${issue.params.multipleOf}`;
    case 'enum':
      return `must be one of ${listOf(issue.params.allowedValues)}`;
    case 'const':
      return `must be ${listOf([issue.params.allowedValue])}`;
    case 'pattern':
      return patternWords[String(issue.params.pattern)] ?? 'is not in the expected format';
    case 'format':
      return formatWords[String(issue.params.format)] ?? `must be a valid ${issue.params.format}`;
    default:
      // anyOf, oneOf, not, if: the branches' own failures say more, but only the first is reported.
      return 'is not valid';
  }
}
