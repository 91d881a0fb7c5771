// The compose test's webhook receiver, run inside the compose network (node, from Blockyard's image):
// keeps each delivery's headers and raw body; GET /received hands them to the test, which verifies them.
import { createServer } from 'node:http';

const received = [];
createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    if (request.method === 'POST' && request.url === '/hook') {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    } else if (request.method === 'GET' && request.url === '/received') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received));
    } else {
      response.writeHead(404).end();
    }
  });
}).listen(9000, '0.0.0.0');
