import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLoopbackSocket, nodeHttpTransport, NotLoopbackError, TransportFailure, undiciTransport } from '../../src/api/transport.js';
import { runCli } from '../helpers/cli.js';
import { spawnCli } from '../helpers/spawn.js';

// Transport failures named by their real cause: TLS (expired, wrong host,
// self-signed), an unreachable or refusing proxy, and plain http:// to a name under localhost.
// Certificates are made with openssl at test time, under a CA that only these runs trust.

const creds = { SVC_USERNAME: 'tls@example.com', SVC_PASSWORD: 'transport-Pa55' };
const dir = mkdtempSync(join(tmpdir(), 'svc-transport-'));
const file = (name: string): string => join(dir, name);
const servers: (HttpServer | HttpsServer)[] = [];
const sockets = new Set<Socket>();

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A leaf key and certificate for `names`, signed by the test CA (or by itself), valid `days`. */
function leaf(name: string, subjectAltNames: string, days: number, selfSigned = false): void {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  writeFileSync(file(`${name}.ext`), `subjectAltName=${subjectAltNames}\n`);
  if (selfSigned) {
    openssl('req', '-x509', ...ec, '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', String(days), '-subj', '/CN=localhost', '-addext', `subjectAltName=${subjectAltNames}`);
    return;
  }
  openssl('req', '-new', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=localhost');
  openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', String(days), '-out', `${name}.pem`, '-extfile', `${name}.ext`);
}

async function listen<T extends HttpServer | HttpsServer>(server: T): Promise<number> {
  servers.push(server);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const ports: Record<string, number> = {};
const tenants = JSON.stringify([{ tenantId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' }]);

beforeAll(async () => {
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=svc transport test CA');
  leaf('expired', 'DNS:localhost,IP:127.0.0.1', -1);
  leaf('wronghost', 'DNS:other.test', 2);
  leaf('selfsigned', 'DNS:localhost,IP:127.0.0.1', 2, true);
  leaf('good', 'DNS:localhost,IP:127.0.0.1', 2);
  for (const name of ['expired', 'wronghost', 'selfsigned', 'good']) {
    const server = createHttpsServer({ key: readFileSync(file(`${name}.key`)), cert: readFileSync(file(`${name}.pem`)) }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(tenants);
    });
    ports[name] = await listen(server);
  }
  // A plain HTTP API for the localhost-name test.
  ports['plain'] = await listen(createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(tenants)));
  // A proxy that refuses every CONNECT with 502, and a port where nothing listens.
  const refusing = createHttpServer((_req, res) => res.writeHead(405).end());
  refusing.on('connect', (_req, client: Socket) => {
    client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
  });
  ports['refusingProxy'] = await listen(refusing);
  const closed = createHttpServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  ports['closed'] = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

describe('TLS failures name their real cause', () => {
  const trusted = (): Record<string, string> => ({ ...creds, NODE_EXTRA_CA_CERTS: file('ca.pem') });

  it('the CA is trusted, so a good certificate works', async () => {
    const result = await spawnCli(['tenant', 'list', '--json'], { env: { ...trusted(), SVC_BASE_URL: `https://localhost:${ports['good']}` } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('an expired certificate says so, without the NODE_EXTRA_CA_CERTS hint', async () => {
    const result = await spawnCli(['tenant', 'list'], { env: { ...trusted(), SVC_BASE_URL: `https://localhost:${ports['expired']}` } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('its certificate has expired (CERT_HAS_EXPIRED)');
    expect(result.stderr).not.toContain('NODE_EXTRA_CA_CERTS');
  });

  it('a certificate for another host says so, without the hint', async () => {
    const result = await spawnCli(['tenant', 'list', '--json'], { env: { ...trusted(), SVC_BASE_URL: `https://localhost:${ports['wronghost']}` } });
    expect(result.code).toBe(1);
    const message = (JSON.parse(result.stderr) as { error: { message: string } }).error.message;
    expect(message).toContain('its certificate is for another host name (ERR_TLS_CERT_ALTNAME_INVALID)');
    expect(message).not.toContain('NODE_EXTRA_CA_CERTS');
  });

  it('a self-signed certificate says so, with the hint', async () => {
    const result = await spawnCli(['tenant', 'list'], { env: { ...trusted(), SVC_BASE_URL: `https://localhost:${ports['selfsigned']}` } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('its certificate is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT)');
    expect(result.stderr).toContain('NODE_EXTRA_CA_CERTS');
  });
});

describe('proxy failures name the proxy', () => {
  const env = (proxy: string): Record<string, string> => ({ ...creds, SVC_BASE_URL: 'https://api.svc.test', HTTPS_PROXY: proxy });

  it('an unreachable proxy is named, not the API host, and its credentials are not shown', async () => {
    const result = await runCli(['tenant', 'list'], { env: env(`http://proxy-user:proxy-Secret-1@127.0.0.1:${ports['closed']}`) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Cannot connect to the proxy http://127.0.0.1:${ports['closed']}: connection refused`);
    expect(result.stderr).not.toContain('Cannot connect to api.svc.test');
    expect(result.stderr).not.toContain('proxy-Secret-1');
  });

  it('a proxy that will not open the tunnel is named with its answer', async () => {
    const result = await runCli(['tenant', 'list', '--json'], { env: env(`http://127.0.0.1:${ports['refusingProxy']}`) });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error.message).toContain(`The proxy http://127.0.0.1:${ports['refusingProxy']} would not connect to api.svc.test: it answered HTTP 502`);
  });
});

describe('plain http:// to a name under localhost', () => {
  it('connects to loopback through the hosts file, not DNS', async () => {
    const result = await runCli(['tenant', 'list', '--json'], { env: { ...creds, SVC_BASE_URL: `http://svc-test.localhost:${ports['plain']}` } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(JSON.parse(tenants));
  });
});

describe('plain http:// whose peer is not loopback', () => {
  // A machine's own non-loopback address stands in for "a name that resolved elsewhere"; on a
  // machine with no such interface the socket check is exercised on a loopback peer refused as
  // if it were one, through the same transports.
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i !== undefined && !i.internal && i.family === 'IPv4')?.address;

  it.each(['node:http', 'undici'] as const)('is closed by %s before a byte is sent', async (which) => {
    let received = 0;
    const server = createHttpServer((_req, res) => {
      received++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(tenants);
    });
    server.on('connection', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, external ?? '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const url = new URL(`http://${external ?? '127.0.0.1'}:${port}/api/v1/tenants`);
      const transport =
        which === 'node:http' ? await nodeHttpTransport({ root: url }) : await undiciTransport({ timeoutMs: 5_000, throughput: false });
      const exchange = { method: 'GET', url, headers: {}, body: undefined, cancel: { cancelled: false, reason: undefined, onCancel: undefined }, maxAnswerBytes: 1024 * 1024 };
      if (external !== undefined) {
        const failure = await transport.exchange(exchange).then(() => undefined, (error: unknown) => error);
        expect(failure).toBeInstanceOf(TransportFailure);
        expect((failure as TransportFailure).stage).toBe('connect');
        expect(String((failure as TransportFailure).cause)).toContain(`connected to ${external}`);
        expect(received).toBe(0);
      } else {
        expect(checkLoopbackSocket(url, '192.0.2.2')).toBeInstanceOf(NotLoopbackError);
        expect((await transport.exchange(exchange)).status).toBe(200);
      }
      await transport.close();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
