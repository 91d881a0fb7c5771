import { afterEach, describe, expect, it } from 'vitest';
import { call, cleanUp, openClient, post, result, simOverAnvil, sleep } from './support/sim-over-anvil.ts';

afterEach(cleanUp);

describe('stall: a frozen node', () => {
  it('accepts a request and never answers it until the stall ends; closes at once with requests held', async () => {
    const { sim } = await simOverAnvil({ stall: true });
    const timedOut = await post(sim.url, call('eth_chainId'), 300).catch((error: Error) => error);
    expect(timedOut).toMatchObject({ name: 'TimeoutError' });
    const held = post(sim.url, call('eth_chainId', [], 7));
    await sleep(100);
    expect(sim.calls('eth_chainId')).toBe(2);

    sim.set({ stall: false });
    expect(await (await held).json()).toEqual({ jsonrpc: '2.0', id: 7, result: '0x7a69' });
    expect(await result(sim.url, 'eth_chainId')).toBe('0x7a69');

    sim.set({ stall: true });
    const heldAtClose = post(sim.url, call('eth_chainId')).catch((error: Error) => error);
    await sleep(100);
    const closing = performance.now();
    await sim.close();
    expect(performance.now() - closing).toBeLessThan(1_000);
    expect(await heldAtClose).toBeInstanceOf(Error);
  });

  it('holds WebSocket answers too, and sends them when the stall ends', async () => {
    const { sim } = await simOverAnvil({}, 3);
    const client = await openClient(sim.wsUrl);
    sim.set({ stall: true });
    client.socket.send(JSON.stringify(call('eth_blockNumber', [], 5)));
    await sleep(300);
    expect(client.messages).toEqual([]);
    sim.set({ stall: false });
    expect(await client.waitFor((message) => message.id === 5)).toEqual({ jsonrpc: '2.0', id: 5, result: '0x3' });
  });
});

describe('html502: a proxy whose backend is down', () => {
  it("answers HTTP 502 with nginx's HTML page, and refuses a WebSocket upgrade the same way", async () => {
    const { sim } = await simOverAnvil({ html502: true });
    const response = await post(sim.url, call('eth_chainId'));
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('text/html');
    const page = await response.text();
    expect(page).toContain('<center><h1>502 Bad Gateway</h1></center>');
    expect(page).toContain('<hr><center>nginx</center>');
    await expect(openClient(sim.wsUrl)).rejects.toThrow(/502/);
    expect(sim.calls('eth_chainId')).toBe(1);
  });
});

describe('chainId: the wrong chain behind the URL', () => {
  it('says the configured chain in eth_chainId (hex) and net_version (decimal), over HTTP and WebSocket', async () => {
    const { sim } = await simOverAnvil({ chainId: 8453 }, 2);
    expect(await result(sim.url, 'eth_chainId')).toBe('0x2105');
    expect(await result(sim.url, 'net_version')).toBe('8453');
    expect(await result(sim.url, 'eth_blockNumber')).toBe('0x2');
    const client = await openClient(sim.wsUrl);
    expect((await client.request('eth_chainId', [], 1)).result).toBe('0x2105');
    expect((await client.request('net_version', [], 2)).result).toBe('8453');
  });
});

describe('latencyMs', () => {
  it('delays every answer', async () => {
    const { sim } = await simOverAnvil({ latencyMs: 250 });
    const started = performance.now();
    expect(await result(sim.url, 'eth_chainId')).toBe('0x7a69');
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });
});
