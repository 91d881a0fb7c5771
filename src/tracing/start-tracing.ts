import type { Logger } from 'pino';
import type { TracingConfig } from '../config/tracing-settings.ts';
import { setActiveTracing, tracingOn } from './tracing.ts';

/** Tracing could not be turned on (another service of this process has it on already). */
export class TracingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TracingError';
  }
}

export interface RunningTracing {
  /** Sends the spans still waiting, then turns tracing off (the process's OpenTelemetry globals too). */
  stop(): Promise<void>;
}

/** How long the stop waits for the last spans to reach the collector. */
const exportTimeoutMs = 10_000;

/**
 * Loads the OpenTelemetry SDK and registers it for the process: spans go in batches to the collector
 * over OTLP/HTTP (JSON), each request's context follows its `await`s (AsyncLocalStorage), and W3C
 * `traceparent` is read from clients and written to upstreams and webhook receivers. New traces are
 * sampled at `sampleRatio`; a client's trace keeps the client's decision. Called only when tracing is
 * configured: the SDK's modules are imported here, so a service without tracing never loads them.
 */
export async function startTracing(config: TracingConfig, logger: Logger): Promise<RunningTracing> {
  if (tracingOn()) throw new TracingError('tracing is already on in this process (one traced service per process)');
  const [api, core, sdk, otlp, resources, asyncHooks, otel] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/context-async-hooks'),
    import('./otel-tracing.ts'),
  ]);
  const exporter = new otlp.OTLPTraceExporter({ url: config.tracesUrl, timeoutMillis: exportTimeoutMs });
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': config.serviceName }),
    sampler: new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(config.sampleRatio) }),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter, exportTimeoutMillis: exportTimeoutMs })],
  });
  const contextManager = new asyncHooks.AsyncLocalStorageContextManager().enable();
  const log = logger.child({ component: 'tracing' });
  // The SDK reports a collector it cannot reach through `diag`: warnings in our log, nothing thrown.
  api.diag.setLogger(
    {
      error: (message) => log.warn({ detail: message }, 'tracing: spans could not be exported'),
      warn: (message) => log.warn({ detail: message }, 'tracing'),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    api.DiagLogLevel.WARN,
  );
  api.context.setGlobalContextManager(contextManager);
  api.propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  setActiveTracing(otel.createOtelTracing(provider.getTracer('blockyard')));
  log.info({ endpoint: config.origin, sampleRatio: config.sampleRatio }, 'tracing on: spans go to the OTLP endpoint');

  return {
    async stop() {
      setActiveTracing(undefined);
      try {
        await provider.shutdown();
      } finally {
        api.trace.disable();
        api.propagation.disable();
        api.context.disable();
        api.diag.disable();
      }
    },
  };
}
