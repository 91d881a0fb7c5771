import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An attribute value as OTLP/JSON writes it. */
type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: AnyValue }[];
  events?: { name: string; attributes?: { key: string; value: AnyValue }[] }[];
  status?: { code?: number; message?: string };
}

/** One span received, its ids in hex and its attributes as plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Record<string, string | number | boolean>;
  readonly events: { name: string; attributes: Record<string, string | number | boolean> }[];
  readonly status: { code: number; message: string };
  readonly serviceName: string;
}

export interface OtlpReceiver {
  /** The base URL (`tracing.endpoint`): the exporter POSTs to `<url>/v1/traces`. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Every request body as it came, to search for what must never be exported. */
  readonly bodies: string[];
  /** Requests that were not OTLP/JSON on /v1/traces (should stay 0). */
  readonly refused: number;
  close(): Promise<void>;
}

export const spanKinds = { internal: 1, server: 2, client: 3 } as const;

/**
 * A real OTLP/HTTP receiver on 127.0.0.1, as a collector would run it: takes `POST /v1/traces` with a
 * JSON `ExportTraceServiceRequest` (the encoding `@opentelemetry/exporter-trace-otlp-http` sends),
 * answers 200 with an empty `ExportTraceServiceResponse`, and keeps every span.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  let refused = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).includes('json')) {
        refused++;
        res.writeHead(415).end();
        return;
      }
      bodies.push(body);
      spans.push(...spansOf(JSON.parse(body)));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    get refused() {
      return refused;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: AnyValue }[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

function spansOf(request: ExportRequest): ReceivedSpan[] {
  const found: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = plain(resourceSpans.resource?.attributes);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        found.push({
          traceId: hexId(span.traceId),
          spanId: hexId(span.spanId),
          parentSpanId: span.parentSpanId ? hexId(span.parentSpanId) : '',
          name: span.name,
          kind: span.kind,
          attributes: plain(span.attributes),
          events: (span.events ?? []).map((event) => ({ name: event.name, attributes: plain(event.attributes) })),
          status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
          serviceName: String(resource['service.name'] ?? ''),
        });
      }
    }
  }
  return found;
}

function plain(attributes: { key: string; value: AnyValue }[] | undefined): Record<string, string | number | boolean> {
  const values: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    values[key] = value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue);
  }
  return values;
}

/** OTLP/JSON ids are hex; base64 (protobuf's JSON mapping) is turned into hex too. */
function hexId(id: string): string {
  return /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex');
}
