import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

// The service of the suites that play a hostile or echoing server (control bytes in every field,
// secrets echoed in any escaping): one catch-all answer on 127.0.0.1, for a whole test file, with
// a temporary directory beside it. Unlike startTestServer's route table, any request is answered:
// these suites run every command against it and judge only what is printed.

export interface LoopbackService {
  /** The service's base URL, once it listens (from the file's first test on). */
  readonly url: string;
  /** A temporary directory for the file, removed after its tests. */
  readonly dir: string;
}

/**
 * Starts the service before the file's tests; after them, cuts its open connections (keep-alive
 * ones would hold close() up), closes it and removes `dir`. `answer` gets each request with its
 * body read whole.
 */
export function loopbackServiceForFile(name: string, answer: (req: IncomingMessage, res: ServerResponse, body: string) => void): LoopbackService {
  const dir = mkdtempSync(join(tmpdir(), `svc-${name}-`));
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  let url: string | undefined;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get url(): string {
      if (url === undefined) throw new Error(`the ${name} service is started before the file's tests, not while it is collected`);
      return url;
    },
    dir,
  };
}
