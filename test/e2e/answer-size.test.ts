import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV } from '../helpers/mock-api.js';
import { spawnCli } from '../helpers/spawn.js';

// An answer of any size must not be read whole: svc health against a 200 MB answer once held
// a gigabyte. Reading stops at the cap (docs/limits.md), exit 1 naming the size.

const MiB = 1024 * 1024;
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server that answers every request with `total` bytes of JSON-looking text, in 64 KiB chunks, until the client goes. */
async function hugeAnswerServer(total: number, declare: boolean): Promise<{ base: string; written: () => number }> {
  let written = 0;
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', ...(declare ? { 'content-length': String(total) } : {}) });
    res.write('{"status":"ok","padding":"');
    written += 27;
    const more = (): void => {
      while (written < total - 2 && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      if (!res.destroyed) res.end('"}');
    };
    res.on('close', () => undefined);
    more();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, written: () => written };
}

const credentials = { SVC_USERNAME: 'user@example.com', SVC_PASSWORD: 'pa55-word-secret' };

describe('an answer larger than svc reads', () => {
  it('stops reading a 200 MB health answer with no length declared, exit 1 naming the cap', async () => {
    const server = await hugeAnswerServer(200 * MiB, false);
    const result = await spawnCli(['health', '--base-url', server.base], { env: credentials, timeoutMs: 60_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is too large: more than 8 MiB had come');
    expect(result.stderr).toContain('docs/limits.md');
    // The client went away long before the server was done.
    expect(server.written()).toBeLessThan(100 * MiB);
  });

  it('refuses a declared Content-Length past the cap before reading the body', async () => {
    const server = await hugeAnswerServer(200 * MiB, true);
    const result = await spawnCli(['health', '--base-url', server.base, '--json'], { env: credentials, timeoutMs: 60_000 });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error.message).toContain('its Content-Length is 200 MiB');
  });

  it('through undici too (https), and is not retried', async () => {
    const api = createMockApi();
    api.expect('GET', 'health', { status: 200, body: `{"status":"ok","padding":"${' '.repeat(9 * MiB)}"}` });
    const result = await runCli(['health', '--json'], { env: { ...MOCK_ENV }, dispatcher: api.agent });
    api.verify();
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error.message).toMatch(/too large: (its Content-Length is 9 MiB|more than 8 MiB had come)/);
  });

  it('reads a list page of several megabytes, under the list cap', async () => {
    const api = createMockApi();
    const items = Array.from({ length: 20_000 }, (_, i) => ({ phoneNumber: `+1555${String(i).padStart(7, '0')}`, description: 'x'.repeat(400) }));
    api.expect('GET', 'phone-numbers/active', { status: 200, body: { items } });
    const result = await runCli(['number', 'list', '--json'], { env: { ...MOCK_ENV }, dispatcher: api.agent });
    api.verify();
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(20_000);
  });
});
