import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discover } from './discover.js';
import { probeCandidate } from './probe.js';

/** A runtime mounted under /team1 that answers /info with an OAuth-protected MCP endpoint. */
function routedServer(): Server {
  return createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/moved/health') {
      res.writeHead(307, { location: '/team1/health' }).end();
      return;
    }
    if (req.url === '/team1/health') return void res.end('{"status":"ok"}');
    if (req.url === '/team1/info') {
      return void res.end(
        JSON.stringify({
          os_id: 'team1',
          name: '',
          version: '2.0.0',
          mcp: { enabled: true, path: 'custom/mcp', oauth: { authorization_servers: ['https://as.example', 7], resource: '' } },
          auth_mode: 'jwt',
        }),
      );
    }
    if (req.url === '/array/health') return void res.end('[]');
    res.writeHead(404).end('{"detail":"Not Found"}');
  });
}

describe('probeCandidate', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = routedServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const a = server.address();
    base = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('keeps the base path when joining endpoints, and parses /info leniently', async () => {
    const info = await probeCandidate({ url: `${base}/team1`, source: 'flag', sourceFile: null }, {});
    expect(info).toEqual({
      url: `${base}/team1`,
      name: null,
      os_id: 'team1',
      version: '2.0.0',
      mcp: { enabled: true, path: 'custom/mcp', oauth: { authorization_servers: ['https://as.example'], resource: null } },
      auth_mode: 'jwt',
      discovered_via: 'info',
      url_source: 'flag',
      url_source_file: null,
    });
  });

  it('follows redirects, and falls back to probing when /info says nothing', async () => {
    expect(await probeCandidate({ url: `${base}/moved`, source: 'default', sourceFile: null }, {})).toMatchObject({
      url: `${base}/moved`,
      mcp: { enabled: false, path: null, oauth: null },
      auth_mode: 'unknown',
      discovered_via: 'probe',
    });
  });

  it('treats a non-object /health body or a 404 as "nothing here"', async () => {
    expect(await probeCandidate({ url: `${base}/array`, source: 'flag', sourceFile: null }, {})).toBeUndefined();
    expect(await probeCandidate({ url: `${base}/nothing`, source: 'flag', sourceFile: null }, {})).toBeUndefined();
  });

  it('rejects a URL it cannot use, naming the file it came from', async () => {
    await expect(probeCandidate({ url: 'http://host:${PORT}', source: 'env-file', sourceFile: '.env' }, {})).rejects.toMatchObject({
      code: 'INVALID_URL',
      message: 'Invalid runtime URL: http://host:${PORT} (from RUNTIME_URL in .env).',
      hint: 'Fix the URL in .env or pass --url.',
    });
  });

  it('discover() reports every URL it tried', async () => {
    await expect(discover({ url: `${base}/nothing`, env: {}, cwd: '/' })).rejects.toMatchObject({
      code: 'NO_RUNTIME',
      message: `No running runtime found (tried: ${base}/nothing).`,
    });
  });
});
