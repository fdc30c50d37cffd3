// The floor: plain node:http answering a fixed JSON body, no framework, no routing.
import { createServer } from 'node:http';

const body = JSON.stringify({ status: 'ok', instantiated_at: new Date().toISOString() });
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`LISTENING http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
