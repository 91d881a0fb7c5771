import type { FromSchema } from 'json-schema-to-ts';
import { ConfigError } from './config-error.ts';
import { closedObject, httpUrlSchema } from './json-schema-parts.ts';

/** YAML `tracing:` section: OpenTelemetry traces over OTLP/HTTP (off unless an endpoint is given). */
export const tracingSettingsSchema = closedObject({
  /** The collector's OTLP/HTTP base URL (`http://collector:4318`); traces go to `<endpoint>/v1/traces`. */
  endpoint: httpUrlSchema,
  service_name: { type: 'string', minLength: 1, maxLength: 100 },
  /** Share of new traces kept (0 to 1); a client's `traceparent` decides for its own requests. */
  sample_ratio: { type: 'number', minimum: 0, maximum: 1 },
});

export interface TracingConfig {
  /** Where spans are POSTed (the full OTLP traces URL). */
  readonly tracesUrl: string;
  readonly serviceName: string;
  readonly sampleRatio: number;
  /** Where the URL came from, for the start line: `tracing.endpoint` or the variable's name. */
  readonly origin: string;
}

/**
 * The tracing settings, or undefined when tracing is off (the default). The standard OpenTelemetry
 * variables beat the YAML file, as every environment variable does: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
 * (the full URL), `OTEL_EXPORTER_OTLP_ENDPOINT` (a base URL, `/v1/traces` appended), `OTEL_SERVICE_NAME`,
 * and `OTEL_SDK_DISABLED=true`, which turns tracing off whatever else is set.
 */
export function buildTracing(
  tracing: FromSchema<typeof tracingSettingsSchema> | undefined,
  env: Record<string, string | undefined>,
  fileName: string,
): TracingConfig | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const located = tracesUrlOf(tracing, env, fileName);
  if (located === undefined) return undefined;
  return {
    tracesUrl: located.url,
    origin: located.origin,
    serviceName: nonBlank(env.OTEL_SERVICE_NAME) ?? tracing?.service_name ?? 'blockyard',
    sampleRatio: tracing?.sample_ratio ?? 1,
  };
}

function tracesUrlOf(
  tracing: FromSchema<typeof tracingSettingsSchema> | undefined,
  env: Record<string, string | undefined>,
  fileName: string,
): { url: string; origin: string } | undefined {
  const full = nonBlank(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (full !== undefined)
    return { url: checkedUrl(full, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'), origin: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' };
  const base = nonBlank(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (base !== undefined)
    return { url: withTracesPath(checkedUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT')), origin: 'OTEL_EXPORTER_OTLP_ENDPOINT' };
  if (tracing?.endpoint === undefined) return undefined;
  const setting = `tracing.endpoint (in ${fileName})`;
  return { url: withTracesPath(checkedUrl(tracing.endpoint, setting)), origin: 'tracing.endpoint' };
}

function checkedUrl(value: string, setting: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(setting, `'${value}' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(setting, 'must be an http(s) URL (OTLP over HTTP)');
  // Credentials belong in a header, not in a URL that start lines and errors may show.
  if (url.username !== '' || url.password !== '') throw new ConfigError(setting, 'must not carry a user or password');
  return url.href;
}

/** The OTLP rule for a base endpoint: the signal's path goes after it. */
function withTracesPath(base: string): string {
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

function nonBlank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
