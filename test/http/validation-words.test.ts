// A request the route's schema refuses is a 400 in words a person would write, naming the field
// (issue 25: the dashboard showed "Must NOT have fewer than 1 characters").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSchemaProblem } from '../../src/core/schema-problem.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** What Ajv's own messages look like: none of them may reach a client. */
const ajvWording =
  /must NOT|must be equal to|must match|must have required|must be (?:integer|string|number|boolean|object|array)\b|[<>]=|\d+ characters$/;

describe('describeSchemaProblem', () => {
  it.each([
    [{ keyword: 'minLength', params: { limit: 1 } }, 'must not be empty'],
    [{ keyword: 'minLength', params: { limit: 10 } }, 'must be at least 10 characters long'],
    [{ keyword: 'maxLength', params: { limit: 200 } }, 'must be at most 200 characters long'],
    [{ keyword: 'maxLength', params: { limit: 1 } }, 'must be at most 1 character long'],
    [{ keyword: 'minItems', params: { limit: 1 } }, 'must not be empty'],
    [{ keyword: 'maxItems', params: { limit: 100 } }, 'must list at most 100 entries'],
    [{ keyword: 'uniqueItems', params: { i: 2, j: 0 } }, 'must not list the same value twice (entries 1 and 3 are the same)'],
    [{ keyword: 'minimum', params: { comparison: '>=', limit: 1 } }, 'must be at least 1'],
    [{ keyword: 'maximum', params: { comparison: '<=', limit: 100 } }, 'must be at most 100'],
    [{ keyword: 'exclusiveMinimum', params: { comparison: '>', limit: 0 } }, 'must be more than 0'],
    [{ keyword: 'type', params: { type: 'integer' } }, 'must be a whole number'],
    [{ keyword: 'type', params: { type: 'integer,null' } }, 'must be a whole number or null'],
    [{ keyword: 'type', params: { type: ['string', 'null'] } }, 'must be text or null'],
    [{ keyword: 'type', params: { type: 'boolean' } }, 'must be true or false'],
    [{ keyword: 'enum', params: { allowedValues: ['test', 'live'] } }, 'must be one of test, live'],
    [{ keyword: 'const', params: { allowedValue: '2.0' } }, 'must be 2.0'],
    [{ keyword: 'format', params: { format: 'email' } }, 'must be an email address, like you@example.com'],
    [
      { keyword: 'pattern', params: { pattern: '^[0-9]{1,15}(\\.[0-9]{1,12})?$' } },
      'must be an amount in digits with at most 12 decimals, like "12.50"',
    ],
    [{ keyword: 'pattern', params: { pattern: '^x+$' } }, 'is not in the expected format'],
    [{ keyword: 'minProperties', params: { limit: 1 } }, 'must not be empty: give at least one field'],
    [{ keyword: 'anyOf', params: {} }, 'is not valid'],
  ])('%o reads %s', (issue, words) => {
    expect(describeSchemaProblem(issue)).toBe(words);
  });
});

describe('schema refusals of the API', () => {
  let t: TestService;
  let key: string;
  let keyId: string;
  let accountId: string;
  beforeAll(async () => {
    t = await startTestService();
    ({ key, keyId, accountId } = await t.createKey());
  });
  afterAll(() => t?.stop());

  const asKey = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, body: (await response.json()) as { error: { code: string; message: string } } };
  };

  it.each([
    [
      'a policy with an empty name',
      'POST',
      '/v1/gas/policies',
      { name: '', chain: 'ethereum', rules: {} },
      "invalid body 'name': must not be empty",
    ],
    [
      'a policy name too long',
      'POST',
      '/v1/gas/policies',
      { name: 'p'.repeat(201), chain: 'ethereum', rules: {} },
      "invalid body 'name': must be at most 200 characters long",
    ],
    [
      'a webhook without a URL',
      'POST',
      '/v1/webhooks',
      { url: '', chain: 'ethereum', event_type: 'new_block' },
      "invalid body 'url': must not be empty",
    ],
    [
      'a webhook of an unknown event type',
      'POST',
      '/v1/webhooks',
      { url: 'https://example.com', chain: 'ethereum', event_type: 'nope' },
      /^invalid body 'event_type': must be one of [a-z_]+, /,
    ],
    [
      'a status that is not one',
      'GET',
      '/v1/webhooks?status=bogus',
      undefined,
      /^invalid query parameter 'status': must be one of active, /,
    ],
    ['a limit over 100', 'GET', '/v1/gas/policies?limit=101', undefined, "invalid query parameter 'limit': must be at most 100"],
  ])('%s', async (_name, method, path, body, message) => {
    const answer = await asKey(method, path, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_request');
    if (typeof message === 'string') expect(answer.body.error.message).toBe(message);
    else expect(answer.body.error.message).toMatch(message);
  });

  it.each([
    [
      'a key of an unknown environment',
      'POST',
      () => `/admin/accounts/${accountId}/keys`,
      { name: 'k', environment: 'prod' },
      "invalid body 'environment': must be one of test, live",
    ],
    [
      'a key with an empty name',
      'POST',
      () => `/admin/accounts/${accountId}/keys`,
      { name: '', environment: 'test' },
      "invalid body 'name': must not be empty",
    ],
    [
      'a list entry too long, named with its index',
      'PATCH',
      () => `/admin/keys/${keyId}`,
      { restrictions: { origins: ['https://a.example', `https://${'o'.repeat(300)}.example`] } },
      "invalid body 'restrictions.origins[1]': must be at most 300 characters long",
    ],
    [
      'a limit of the wrong type',
      'PATCH',
      () => `/admin/keys/${keyId}`,
      { limits: { rps: 'fast' } },
      /^invalid body 'limits\.rps': must be a whole number/,
    ],
    [
      'a patch with nothing in it',
      'PATCH',
      () => `/admin/keys/${keyId}`,
      {},
      'the body must not be empty: give at least one field',
    ],
  ])('admin: %s', async (_name, method, path, body, message) => {
    const answer = await t.admin(method, path(), body);
    expect(answer.status).toBe(400);
    if (typeof message === 'string') expect(answer.body.error.message).toBe(message);
    else expect(answer.body.error.message).toMatch(message);
    expect(answer.body.error.message).not.toMatch(ajvWording);
  });

  it('has words for every pattern and format the published routes use', async () => {
    const document = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as { paths: unknown };
    const found: { keyword: string; params: Record<string, unknown> }[] = [];
    const walk = (node: unknown) => {
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (typeof schema.pattern === 'string') found.push({ keyword: 'pattern', params: { pattern: schema.pattern } });
      if (typeof schema.format === 'string') found.push({ keyword: 'format', params: { format: schema.format } });
      for (const value of Object.values(schema)) walk(value);
    };
    walk(document.paths);
    expect(found.length).toBeGreaterThan(0);
    for (const issue of found) {
      const words = describeSchemaProblem(issue);
      expect(words, JSON.stringify(issue)).not.toBe('is not in the expected format');
      expect(words, JSON.stringify(issue)).not.toMatch(/must be a valid /);
    }
  });
});
