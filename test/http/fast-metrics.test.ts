import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CounterChildren } from '../../src/observability/counter-children.ts';
import { FastHistogram } from '../../src/observability/fast-histogram.ts';

const buckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Values on, between, below and above the bounds. */
const values = [0, 0.0001, 0.0005, 0.0007, 0.001, 0.003, 0.2, 0.25, 4.9, 5, 7, 120];

describe('hot-path metrics export exactly what prom-client would', () => {
  it('FastHistogram: same text and JSON as a prom-client Histogram fed the same values', async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const config = { name: 'x_seconds', help: 'x', labelNames: ['method', 'route'] as const, buckets };
    const reference = new Histogram({ ...config, labelNames: [...config.labelNames], registers: [theirs] });
    const fast = new FastHistogram({ ...config, registers: [ours] });
    const child = fast.labels('POST', '/a');
    for (const value of values) {
      reference.observe({ method: 'POST', route: '/a' }, value);
      child.observe(value);
      reference.observe({ method: 'GET', route: '/b' }, value * 2);
      fast.observe({ method: 'GET', route: '/b' }, value * 2);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
    ours.resetMetrics();
    expect(await ours.metrics()).toBe('# HELP x_seconds x\n# TYPE x_seconds histogram\n');
  });

  it('CounterChildren: increments reach the counter whenever the registry is read', async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const config = { name: 'calls_total', help: 'calls', labelNames: ['chain', 'method'] };
    const reference = new Counter({ ...config, registers: [theirs] });
    const children = new CounterChildren(['chain', 'method'] as const);
    const counter = new Counter({ ...config, registers: [ours], collect: () => children.flush() });
    children.attach(counter);
    const a = children.child('ethereum', 'eth_call');
    for (let i = 0; i < 5; i++) {
      a.inc();
      reference.inc({ chain: 'ethereum', method: 'eth_call' });
    }
    children.child('ethereum', 'eth_chainId').inc();
    reference.inc({ chain: 'ethereum', method: 'eth_chainId' });
    expect(await ours.metrics()).toBe(await theirs.metrics());
    // Read again with more increments in between: nothing is counted twice.
    a.inc();
    reference.inc({ chain: 'ethereum', method: 'eth_call' });
    expect(children.child('ethereum', 'eth_call')).toBe(a);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
