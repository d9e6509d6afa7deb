import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// `--base-url https://` pointed at a port that speaks plain HTTP: OpenSSL's
// "wrong version number" becomes a message that suggests the http:// URL.

let server: Server;
let port: number;
let requests = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  server.on('connection', (s: Socket) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const creds = { SVC_USERNAME: 'plain@example.com', SVC_PASSWORD: 'plain-Pa55word' };

describe('https:// to a plain-HTTP port', () => {
  it('says the server answered in plain HTTP and names the http:// URL, not OpenSSL text', async () => {
    const result = await runCli(['tenant', 'list', '--base-url', `https://127.0.0.1:${port}/api/v2`], { env: creds });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`127.0.0.1:${port} answered in plain HTTP, not HTTPS: is the URL http://127.0.0.1:${port}/api/v2?`);
    expect(result.stderr).not.toMatch(/ssl3_get_record|openssl|wrong version number/i);
    expect(result.stderr).not.toContain(creds.SVC_PASSWORD);
    expect(requests).toBe(0);
  });

  it('names a localhost URL the same way in --json errors', async () => {
    const result = await runCli(['tenant', 'list', '--json'], { env: { ...creds, SVC_BASE_URL: `https://localhost:${port}` } });
    expect(result.code).toBe(1);
    const error = (JSON.parse(result.stderr) as { error: { message: string } }).error;
    expect(error.message).toMatch(new RegExp(`^localhost:${port} answered in plain HTTP, not HTTPS: is the URL http://localhost:${port}\\?`));
  });

  it('and the http:// URL it suggests works', async () => {
    const result = await runCli(['tenant', 'list', '--json', '--base-url', `http://127.0.0.1:${port}`], { env: creds });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([]);
  });
});
