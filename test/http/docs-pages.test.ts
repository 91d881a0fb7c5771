// The API reference at /docs cites pages of docs/ (errors.md above all): each is served at /docs/<page>.md.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const docsDir = new URL('../../docs/', import.meta.url);

describe('docs pages', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t?.stop());

  it('serves docs/errors.md as plain text, to GET and HEAD', async () => {
    const response = await fetch(`${t.url}/docs/errors.md`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await response.text()).toBe(readFileSync(new URL('errors.md', docsDir), 'utf8'));
    const head = await fetch(`${t.url}/docs/errors.md`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('serves every page of docs/, and nothing else under that name', async () => {
    for (const name of readdirSync(docsDir).filter((file) => file.endsWith('.md'))) {
      expect((await fetch(`${t.url}/docs/${name}`)).status, name).toBe(200);
    }
    for (const path of ['/docs/missing.md', '/docs/..%2Fpackage.json', '/docs/errors.md.bak']) {
      const response = await fetch(`${t.url}${path}`);
      expect(response.status, path).toBe(404);
      await response.arrayBuffer();
    }
  });

  it('the OpenAPI description links the pages it cites, and every link answers', async () => {
    const document = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as { info: { description: string } };
    const links = [...document.info.description.matchAll(/\]\((\/docs\/[a-z0-9-]+\.md)\)/g)].map((match) => match[1]);
    expect(links).toContain('/docs/errors.md');
    // No page cited as plain text any more: each docs/ mention is a link.
    expect(document.info.description.replace(/\[docs\/[a-z0-9-]+\.md\]\(\/docs\/[a-z0-9-]+\.md\)/g, '')).not.toMatch(
      /docs\/[a-z0-9-]+\.md/,
    );
    for (const link of links) expect((await fetch(`${t.url}${link}`)).status, link).toBe(200);
  });
});
