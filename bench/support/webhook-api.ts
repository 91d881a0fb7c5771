// The webhook calls bench/webhooks.ts makes on the service's /v1 API with the development key.

export interface WebhookApi {
  create(input: { url: string; event_type: string; config?: Record<string, unknown> }): Promise<string>;
  setStatus(id: string, status: 'active' | 'paused'): Promise<void>;
  remove(id: string): Promise<void>;
}

export function webhookApi(baseUrl: string, key: string): WebhookApi {
  const call = async (method: string, path: string, expected: number, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (response.status !== expected) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  return {
    async create(input) {
      const created = await call('POST', '/v1/webhooks', 201, { ...input, chain: 'ethereum' });
      if (typeof created.id !== 'string') throw new Error('POST /v1/webhooks answered no id');
      return created.id;
    },
    async setStatus(id, status) {
      const updated = await call('PATCH', `/v1/webhooks/${id}`, 200, { status });
      if (updated.status !== status) throw new Error(`PATCH /v1/webhooks/${id} left it ${String(updated.status)}`);
    },
    async remove(id) {
      await call('DELETE', `/v1/webhooks/${id}`, 200);
    },
  };
}
