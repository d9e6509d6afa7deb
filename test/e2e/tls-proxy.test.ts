import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/spawn.js';

// HTTPS with a private CA (NODE_EXTRA_CA_CERTS), and HTTPS_PROXY / NO_PROXY, all on loopback.
// The proxy resolves every CONNECT target to the local TLS server, so that the CLI can be pointed
// at a name that is not loopback (api.svc.test) without any lookup leaving the machine.

const tls = (name: string): string => fileURLToPath(new URL(`../fixtures/tls/${name}`, import.meta.url));
const TENANTS = [{ tenantId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' }];

let api: HttpsServer;
let apiPort: number;
let proxy: HttpServer;
let proxyPort: number;
const connects: string[] = [];
const sockets = new Set<Socket>();

beforeAll(async () => {
  api = createHttpsServer({ key: readFileSync(tls('server.key')), cert: readFileSync(tls('server.pem')) }, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-seen-host': req.headers.host ?? '' }).end(JSON.stringify(TENANTS));
  });
  api.on('connection', (s: Socket) => sockets.add(s));
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiPort = (api.address() as AddressInfo).port;
  proxy = createHttpServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req, client: Socket, head: Buffer) => {
    connects.push(req.url ?? '');
    sockets.add(client);
    const upstream = connect(apiPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyPort = (proxy.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all([new Promise((r) => api.close(r)), new Promise((r) => proxy.close(r))]);
});

const creds = { SVC_USERNAME: 'tls@example.com', SVC_PASSWORD: 'tls-password' };

describe('HTTPS', () => {
  it('refuses a certificate from an unknown CA with a hint, and trusts it with NODE_EXTRA_CA_CERTS', async () => {
    const base = `https://localhost:${apiPort}`;
    const untrusted = await spawnCli(['tenant', 'list', '--json'], { env: { ...creds, SVC_BASE_URL: base } });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain('NODE_EXTRA_CA_CERTS');
    const trusted = await spawnCli(['tenant', 'list', '--json'], { env: { ...creds, SVC_BASE_URL: base, NODE_EXTRA_CA_CERTS: tls('ca.pem') } });
    expect(trusted.stderr).toBe('');
    expect(trusted.code).toBe(0);
    expect(JSON.parse(trusted.stdout)).toEqual(TENANTS);
  });

  it('goes through HTTPS_PROXY with a CONNECT tunnel', async () => {
    connects.length = 0;
    const result = await spawnCli(['tenant', 'list', '--json', '--debug'], {
      env: { ...creds, SVC_BASE_URL: 'https://api.svc.test', HTTPS_PROXY: `http://127.0.0.1:${proxyPort}`, NODE_EXTRA_CA_CERTS: tls('ca.pem') },
    });
    expect(result.stderr).not.toContain('error');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(TENANTS);
    expect(connects).toEqual(['api.svc.test:443']);
  });

  it('bypasses the proxy for NO_PROXY hosts and for loopback', async () => {
    connects.length = 0;
    const result = await spawnCli(['tenant', 'list', '--json'], {
      env: { ...creds, SVC_BASE_URL: `https://localhost:${apiPort}`, HTTPS_PROXY: `http://127.0.0.1:${proxyPort}`, NO_PROXY: 'example.org', NODE_EXTRA_CA_CERTS: tls('ca.pem') },
    });
    expect(result.code).toBe(0);
    expect(connects).toEqual([]);
  });
});
