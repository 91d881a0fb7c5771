import { http } from 'viem';
import { createBundlerClient, createPaymasterClient, entryPoint07Address } from 'viem/account-abstraction';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc4337Addresses } from '../../src/erc4337/contracts/abis.ts';
import { bundlerUrlOf, callBundler } from '../bundler/support.ts';
import { newEmptyAccount } from '../paymaster/support.ts';
import {
  opOf,
  relay,
  relayMethod,
  sink,
  sinkMethod,
  startTracedPolicyChain,
  type TracedPolicyChain,
  throughRelay,
} from './traced-support.ts';

/**
 * A policy's contract and method rules hold for every call the op's execution makes (the node's
 * debug_traceCall), not only the calls its callData names; allowed_senders and allowed_factories; and
 * a node that cannot trace, where such a policy refuses and says why.
 */
describe('gas policies on the traced execution', () => {
  let chain: TracedPolicyChain;

  beforeAll(async () => {
    chain = await startTracedPolicyChain();
  }, 120_000);
  afterAll(async () => {
    await chain?.stop();
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${chain.service.url}${path}`, {
      method,
      headers: { 'x-api-key': chain.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
    return { status: response.status, body: (await response.json()) as any };
  };
  const newPolicy = async (rules: Record<string, unknown>, network = 'devnet') => {
    const created = await api('POST', '/v1/gas/policies', { name: 'traced', chain: 'ethereum', network, rules });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as { id: string; call_rules_enforcement?: string };
  };
  const sponsor = (policyId: string, userOperation: unknown, network = 'devnet') =>
    api('POST', '/v1/gas/sponsor', { chain: 'ethereum', network, policy_id: policyId, user_operation: userOperation });
  const account = (version: '0.6' | '0.7' = '0.7') => newEmptyAccount(chain.publicClient, version);

  it('refuses an op whose allowed contract calls a contract the policy does not name (the callData names only the allowed one)', async () => {
    const onlyRelay = await newPolicy({ allowed_contracts: [relay] });
    const op = await opOf(chain.publicClient, await account(), [throughRelay]);
    const refused = await sponsor(onlyRelay.id, op);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toEqual({
      code: 'policy_violation',
      status: 403,
      message: `allowed_contracts: the op's execution calls ${sinkMethod} on ${sink} (from ${relay}), which this policy does not sponsor`,
    });
    // ERC-7677's stub data is refused the same way, before the client estimates or signs anything.
    const stub = await callBundler(bundlerUrlOf(chain.service.url), chain.key, 'pm_getPaymasterStubData', [
      op,
      entryPoint07Address,
      '0x7a69',
      { policy_id: onlyRelay.id },
    ]);
    expect(stub.error).toMatchObject({ code: -32501, data: { code: 'policy_violation' } });
    expect(stub.error?.message).toMatch(/^allowed_contracts: the op's execution calls 0xbbbbbbbb on 0x0+5111c0/);
    // A v0.6 op (initCode) is traced the same way.
    const v06 = await sponsor(onlyRelay.id, await opOf(chain.publicClient, await account('0.6'), [throughRelay]));
    expect(v06.body.error?.message).toMatch(/^allowed_contracts: the op's execution calls 0xbbbbbbbb on 0x0+5111c0/);
    expect((await api('GET', `/v1/gas/policies/${onlyRelay.id}/usage`)).body.ops).toBe(0);
  });

  it('sponsors what every call allows: a direct call, and the relay with its target; the op lands through viem', async () => {
    const direct = await newPolicy({ allowed_contracts: [sink], allowed_methods: [sinkMethod] });
    const straight = await sponsor(
      direct.id,
      await opOf(chain.publicClient, await account(), [{ to: sink, value: 0n, data: sinkMethod }]),
    );
    expect(straight.status, JSON.stringify(straight.body)).toBe(200);

    const both = await newPolicy({ allowed_contracts: [relay, sink], allowed_methods: [relayMethod, sinkMethod] });
    const wallet = await account();
    const transport = http(bundlerUrlOf(chain.service.url), {
      fetchOptions: { headers: { 'x-api-key': chain.key } },
      retryCount: 0,
    });
    const client = createBundlerClient({
      client: chain.publicClient,
      chain: foundry,
      transport,
      paymaster: createPaymasterClient({ transport }),
      paymasterContext: { policy_id: both.id },
      pollingInterval: 100,
    });
    const hash = await client.sendUserOperation({ account: wallet, calls: [throughRelay] });
    const receipt = await client.waitForUserOperationReceipt({ hash, timeout: 30_000 });
    expect(receipt.success).toBe(true);
    expect(await chain.publicClient.getBalance({ address: wallet.address })).toBe(0n);

    // The account is deployed now: its next op is traced on its own code, and still checked.
    const next = await opOf(chain.publicClient, wallet, [throughRelay]);
    expect(next.factory).toBeUndefined();
    expect((await sponsor(both.id, next)).status).toBe(200);
    const relayOnly = await newPolicy({ allowed_methods: [relayMethod] });
    const refused = await sponsor(relayOnly.id, next);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      `allowed_methods: the op's execution calls ${sinkMethod} on ${sink} (from ${relay}), which is no method this policy sponsors`,
    );
  });

  it('allowed_senders: only the smart accounts named', async () => {
    const [allowed, other] = await Promise.all([account(), account()]);
    const policy = await newPolicy({ allowed_senders: [allowed.address] });
    expect((await sponsor(policy.id, await opOf(chain.publicClient, allowed, [throughRelay]))).status).toBe(200);
    const refused = await sponsor(policy.id, await opOf(chain.publicClient, other, [throughRelay]));
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      `allowed_senders: ${other.address.toLowerCase()} is not one of the 1 senders this policy sponsors`,
    );
  });

  it('allowed_factories: an op that deploys its sender must use one; stored, shown, changed, and a bad entry named', async () => {
    const v07Factory = erc4337Addresses.v07.factory.toLowerCase();
    const v06Factory = erc4337Addresses.v06.factory.toLowerCase();
    const policy = await newPolicy({ allowed_factories: [erc4337Addresses.v07.factory] });
    expect((await api('GET', `/v1/gas/policies/${policy.id}`)).body.rules.allowed_factories).toEqual([v07Factory]);
    expect((await sponsor(policy.id, await opOf(chain.publicClient, await account(), [throughRelay]))).status).toBe(200);
    const v06 = await sponsor(policy.id, await opOf(chain.publicClient, await account('0.6'), [throughRelay]));
    expect(v06.status).toBe(403);
    expect(v06.body.error.message).toBe(
      `allowed_factories: the op deploys its sender with the factory ${v06Factory}, which this policy does not sponsor`,
    );

    const changed = await api('PATCH', `/v1/gas/policies/${policy.id}`, { rules: { allowed_factories: [v06Factory] } });
    expect(changed.body.rules).toMatchObject({ allowed_factories: [v06Factory] });
    expect((await sponsor(policy.id, await opOf(chain.publicClient, await account('0.6'), [throughRelay]))).status).toBe(200);
    const bad = await api('POST', '/v1/gas/policies', {
      name: 'bad',
      chain: 'ethereum',
      network: 'devnet',
      rules: { allowed_factories: [v07Factory, 'factory'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe("invalid parameter 'rules.allowed_factories[1]': must be a 0x address of 40 hex digits");
  });

  it('where the node cannot trace, a policy with call rules refuses and its answer says so; other policies sponsor', async () => {
    const traced = await newPolicy({ allowed_contracts: [sink] });
    expect(traced.call_rules_enforcement).toBe('traced');
    const noRules = await newPolicy({ max_ops: 10 }, 'notrace');
    expect(noRules).not.toHaveProperty('call_rules_enforcement');

    const untraced = await newPolicy({ allowed_contracts: [sink] }, 'notrace');
    expect(untraced.call_rules_enforcement).toMatch(
      /^unavailable: the node of ethereum\/notrace does not trace calls \(debug_traceCall with the callTracer: .*\); ops under this policy are refused$/,
    );
    const op = await opOf(chain.publicClient, await account(), [{ to: sink, value: 0n, data: sinkMethod }]);
    const refused = await sponsor(untraced.id, op, 'notrace');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('policy_violation');
    expect(refused.body.error.message).toMatch(
      /^allowed_contracts cannot be enforced: the node of ethereum\/notrace does not trace calls \(.*\); ops under a policy that names contracts or methods are refused there$/,
    );
    expect(chain.noTraceNode.count('debug_traceCall')).toBeGreaterThan(0);
    expect((await sponsor(noRules.id, op, 'notrace')).status).toBe(200);

    // An upstream whose methods setting denies debug_*: the same, in its words.
    const denied = await newPolicy({ allowed_methods: [sinkMethod] }, 'denied');
    expect(denied.call_rules_enforcement).toMatch(/^unavailable: no upstream of ethereum\/denied serves debug_traceCall/);
    const deniedAnswer = await sponsor(denied.id, op, 'denied');
    expect(deniedAnswer.body.error.message).toMatch(
      /^allowed_methods cannot be enforced: no upstream of ethereum\/denied serves/,
    );
    const listed = await api('GET', '/v1/gas/policies?limit=100');
    const byId = new Map(listed.body.policies.map((policy: { id: string }) => [policy.id, policy]));
    expect(byId.get(untraced.id)).toMatchObject({ call_rules_enforcement: expect.stringMatching(/^unavailable: /) });
    expect(byId.get(traced.id)).toMatchObject({ call_rules_enforcement: 'traced' });
  });
});
