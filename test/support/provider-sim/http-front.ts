import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseRequest, type RpcReply } from './json-rpc.ts';
import { rateLimitError, retryAfterSeconds } from './rate-limiter.ts';
import { answerInOrder, type SimCore, sleep } from './sim-core.ts';
import { SimulatorClosedError } from './stall-gate.ts';

/** nginx's own page when its upstream is down, as providers' edge proxies send it. */
export const nginx502Page =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/** Answers JSON-RPC over HTTP POST; `lagForRequest` picks the node of this request (the load balancer's choice). */
export function createHttpHandler(core: SimCore, lagForRequest: () => number) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    void readBody(request)
      .then((body) => answerHttp(core, lagForRequest, body, response))
      .catch((error: unknown) => {
        if (error instanceof SimulatorClosedError || response.headersSent) return response.destroy();
        response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      });
  };
}

async function answerHttp(core: SimCore, lagForRequest: () => number, body: string, response: ServerResponse): Promise<void> {
  const parsed = parseRequest(body);
  if (!parsed.ok) return sendJson(response, 200, parsed.reply);
  const { calls, batch } = parsed;
  core.log.received(calls.map((call) => call.method));
  await core.gate.pass();
  const behaviour = core.behaviour();
  if (behaviour.html502) {
    await sleep(behaviour.latencyMs);
    return void response.writeHead(502, { 'content-type': 'text/html' }).end(nginx502Page);
  }
  const lag = lagForRequest();
  const admitted = core.admit(calls);
  const limit = behaviour.rateLimit;
  if (limit?.style === 'http' && admitted.includes(false)) {
    const error = rateLimitError(limit, core.log.receivedInLastSecond());
    await sleep(behaviour.latencyMs);
    return sendJson(
      response,
      429,
      { jsonrpc: '2.0', id: batch ? null : (calls[0]!.id ?? null), error },
      {
        'retry-after': String(retryAfterSeconds(limit)),
      },
    );
  }
  const answers = await answerInOrder(core, calls, admitted, lag);
  await sleep(behaviour.latencyMs);
  if (batch)
    return sendJson(
      response,
      200,
      answers.map((answer) => answer.reply),
    );
  sendJson(response, answers[0]!.httpStatus ?? 200, answers[0]!.reply);
}

function sendJson(response: ServerResponse, status: number, body: RpcReply | RpcReply[], headers: Record<string, string> = {}) {
  if (response.destroyed) return;
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}
