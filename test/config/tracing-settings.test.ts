import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadConfig } from '../../src/config/load.ts';

describe('tracing settings', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'blockyard-tracing-config-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  const load = (tracing: unknown, env: Record<string, string> = {}) => {
    if (tracing !== undefined) writeFileSync(join(cwd, 'blockyard.yaml'), stringify({ tracing }));
    else rmSync(join(cwd, 'blockyard.yaml'), { force: true });
    return loadConfig({ env, cwd }).tracing;
  };
  const refusal = (run: () => unknown): string => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).message;
    }
    throw new Error('expected a ConfigError');
  };

  it('is off by default', () => {
    expect(load(undefined)).toBeUndefined();
    expect(load({ service_name: 'x' })).toBeUndefined();
  });

  it('takes the YAML endpoint as the OTLP base URL, with the defaults', () => {
    expect(load({ endpoint: 'http://127.0.0.1:4318/' })).toEqual({
      tracesUrl: 'http://127.0.0.1:4318/v1/traces',
      serviceName: 'blockyard',
      sampleRatio: 1,
      origin: 'tracing.endpoint',
    });
    expect(load({ endpoint: 'https://collector.example/otlp', service_name: 'api', sample_ratio: 0.25 })).toMatchObject({
      tracesUrl: 'https://collector.example/otlp/v1/traces',
      serviceName: 'api',
      sampleRatio: 0.25,
    });
  });

  it('takes the standard variables over the file, and OTEL_SDK_DISABLED over everything', () => {
    const file = { endpoint: 'http://file:4318', service_name: 'from-file' };
    expect(load(file, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318', OTEL_SERVICE_NAME: 'from-env' })).toMatchObject({
      tracesUrl: 'http://env:4318/v1/traces',
      serviceName: 'from-env',
      origin: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    });
    expect(
      load(undefined, {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://env:4318/traces',
      }),
    ).toMatchObject({ tracesUrl: 'http://env:4318/traces', origin: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' });
    expect(load(file, { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318' })).toBeUndefined();
  });

  it('refuses what is not an http(s) URL without credentials, or a ratio out of 0..1, naming the setting', () => {
    expect(refusal(() => load({ endpoint: 'grpc://collector:4317' }))).toMatch(/tracing/);
    expect(refusal(() => load(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }))).toMatch(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    expect(refusal(() => load({ endpoint: 'http://user:pass@collector:4318' }))).toMatch(/tracing\.endpoint.*user or password/);
    expect(refusal(() => load({ endpoint: 'http://collector:4318', sample_ratio: 2 }))).toMatch(/sample_ratio/);
    expect(refusal(() => load({ endpoint: 'http://collector:4318', headers: {} }))).toMatch(/tracing/);
  });
});
