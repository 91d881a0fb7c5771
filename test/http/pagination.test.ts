import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

describe('pagination (shared by every list endpoint)', () => {
  let t: TestService;
  let accountId: string;
  beforeAll(async () => {
    t = await startTestService();
    accountId = (await t.createKey()).accountId;
    for (let i = 0; i < 4; i++)
      await t.admin('POST', `/admin/accounts/${accountId}/keys`, { name: `k${i}`, environment: 'test' });
  });
  afterAll(() => t?.stop());

  it.each([
    ['limit=0', 'limit', /must be at least 1$/],
    ['limit=101', 'limit', /must be at most 100$/],
    ['page=-1', 'page', /must be at least 1$/],
    ['page=0', 'page', /must be at least 1$/],
    ['limit=abc', 'limit', /must be an integer from 1 to 100$/],
    ['page=1.5', 'page', /must be an integer from 1 to/],
  ])('%s is a 400 naming the parameter', async (query, param, problem) => {
    const response = await t.admin('GET', `/admin/accounts/${accountId}/keys?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
    expect(response.body.error.message).toContain(`'${param}'`);
    expect(response.body.error.message).toMatch(problem);
  });

  it('defaults to page 1 and the list default, and pages in a stable order', async () => {
    const all = await t.admin('GET', `/admin/accounts/${accountId}/keys`);
    expect(all.body.page).toBe(1);
    expect(all.body.total).toBe(5);
    expect(all.body.keys).toHaveLength(5);
    const pages = [];
    for (let page = 1; page <= 3; page++)
      pages.push(await t.admin('GET', `/admin/accounts/${accountId}/keys?limit=2&page=${page}`));
    expect(pages.map((p) => p.body.keys.length)).toEqual([2, 2, 1]);
    expect(pages.every((p) => p.body.total === 5)).toBe(true);
    expect(pages.flatMap((p) => p.body.keys.map((k: { id: string }) => k.id))).toEqual(
      all.body.keys.map((k: { id: string }) => k.id),
    );
    const beyond = await t.admin('GET', `/admin/accounts/${accountId}/keys?page=9`);
    expect(beyond.body).toMatchObject({ keys: [], page: 9, total: 5 });
  });

  it('accepts limit=100 and limit=1', async () => {
    expect((await t.admin('GET', `/admin/accounts/${accountId}/keys?limit=100`)).status).toBe(200);
    expect((await t.admin('GET', `/admin/accounts/${accountId}/keys?limit=1`)).body.keys).toHaveLength(1);
  });
});
