import { sql } from 'kysely';
import { Pool } from 'undici';
import { installErc4337Contracts } from '../../../src/erc4337/contracts/install.ts';
import { installDevnetPaymasters } from '../../../src/paymaster/install-devnet-paymasters.ts';
import { paymasterSetupsOf } from '../../../src/paymaster/paymaster-setup.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { type Receiver, startReceiver } from '../../webhooks/support.ts';
import { withBundler } from './bundler-service.ts';
import type { OpenApiDocument } from './operations.ts';
import type { Hints } from './schema-values.ts';

/** The resources a refused request must leave alone (src/db/tables.ts). */
export const countedTables = [
  'accounts',
  'api_keys',
  'webhooks',
  'webhook_deliveries',
  'gas_policies',
  'wallets',
  'user_operations',
  'users',
] as const;

export type RowCounts = Record<(typeof countedTables)[number], number>;

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface SendOptions {
  method: string;
  target: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/** The service under fuzz, the callers it knows, and what the invariants need. */
export interface FuzzTarget {
  readonly t: TestService;
  readonly doc: OpenApiDocument;
  /** A key of an unlimited account holding every scope. */
  readonly key: string;
  readonly hints: Hints;
  send(options: SendOptions): Promise<Answer>;
  rowCounts(): Promise<RowCounts>;
  close(): Promise<void>;
}

const requestTimeoutMs = 15_000;
const anvilAccount = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const entryPointV07 = '0x0000000071727De22E5E9d8BAf0edAc6f37da032';

/** Starts the service with a webhook receiver on 127.0.0.1, and makes the fixtures the hints name. */
export async function startFuzzTarget(): Promise<FuzzTarget> {
  const t = await startTestService(withBundler);
  await installErc4337Contracts(t.anvil.url);
  const devnet = { config: t.service.ctx.config.chains[0]! };
  await installDevnetPaymasters(t.anvil.url, paymasterSetupsOf(devnet, t.service.ctx.config));
  const receiver: Receiver = await startReceiver();
  const pool = new Pool(t.url, { connections: 4, headersTimeout: requestTimeoutMs, bodyTimeout: requestTimeoutMs });

  const send = async ({ method, target, headers = {}, body }: SendOptions): Promise<Answer> => {
    const response = await pool.request({
      method: method as 'GET',
      path: target,
      headers,
      body,
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
  };
  const unlimited = { rps: null, rpd: null, cups: null, webhook_deliveries_per_day: null };
  const main = await t.createKey({ limits: unlimited });
  const asKey = async (method: string, target: string, body?: unknown) => {
    const answer = await send({
      method,
      target,
      headers: { 'x-api-key': main.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (answer.status >= 300) throw new Error(`fixture ${method} ${target}: ${answer.status} ${answer.text}`);
    return JSON.parse(answer.text || '{}');
  };

  const webhook = await asKey('POST', '/v1/webhooks', {
    url: receiver.url,
    chain: 'ethereum',
    network: 'devnet',
    event_type: 'new_block',
  });
  await asKey('POST', `/v1/webhooks/${webhook.id}/test`);
  const deliveries = await asKey('GET', `/v1/webhooks/${webhook.id}/deliveries`);
  const policy = await asKey('POST', '/v1/gas/policies', { name: 'fuzz', chain: 'ethereum', network: 'devnet', rules: {} });
  const wallet = await asKey('POST', '/v1/wallets/create', { owner: anvilAccount, chain: 'ethereum', network: 'devnet' });
  // Admin routes act on another account, so the fuzz can never revoke or suspend its own key.
  const other = await t.createKey({ limits: unlimited });
  const user = await t.admin('POST', '/admin/users', { email: 'fuzz-user@example.com' });

  const hints: Hints = {
    chain: ['ethereum'],
    network: ['devnet', 'mainnet'],
    id: [webhook.id, policy.id, other.accountId, other.keyId, user.body?.id].filter(Boolean),
    delivery_id: (deliveries.deliveries ?? deliveries.data ?? []).map((d: { id: string }) => d.id),
    account_id: [other.accountId],
    policy_id: [policy.id],
    address: [wallet.address, anvilAccount],
    contract: [anvilAccount, '0x0000000000000000000000000000000000000001'],
    owner: [anvilAccount],
    token_id: ['0', '1'],
    // The NFT v3 routes' names for the same (Alchemy's): lists are sent as the name repeated.
    contractAddress: [anvilAccount],
    contractAddresses: [[anvilAccount]],
    'contractAddresses[]': [[anvilAccount], [anvilAccount, '0x0000000000000000000000000000000000000001']],
    tokenId: ['0', '1', '0x1'],
    url: [receiver.url],
    // Alchemy Notify's names (src/webhooks/alchemy-notify-webhook-routes.ts).
    webhook_id: [webhook.id],
    webhook_url: [receiver.url],
    webhook_type: ['ADDRESS_ACTIVITY', 'NFT_ACTIVITY'],
    entry_point: [entryPointV07],
    email: ['fuzz@example.com'],
    rules: [{}, { max_ops: 10 }],
    config: [{}],
    // The URL forms' key in the path: the key the fuzz sends in its header (another one is 401).
    apiKey: [main.key],
  };

  const doc = JSON.parse((await send({ method: 'GET', target: '/v1/openapi.json' })).text) as OpenApiDocument;
  const db = t.database.db;
  return {
    t,
    doc,
    key: main.key,
    hints,
    send,
    async rowCounts() {
      const selects = countedTables.map((table) => sql<number>`(select count(*)::int from ${sql.table(table)})`.as(table));
      const row = await db.selectNoFrom(selects).executeTakeFirstOrThrow();
      return row as unknown as RowCounts;
    },
    async close() {
      await pool.close();
      await receiver.close();
      await t.stop();
    },
  };
}
