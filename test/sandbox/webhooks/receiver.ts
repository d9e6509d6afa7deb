import { afterEach } from 'vitest';
// A scriptable webhook receiver on 127.0.0.1 port 0 for the dispatcher's tests: it records the
// raw bytes and headers of every request and answers as the test's responder says.

import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type ReceiverAnswer =
  | { status: number; headers?: Record<string, string> }
  /** Never answer (until the receiver closes). */
  | 'hang';

export type Responder = (request: ReceivedRequest, index: number) => ReceiverAnswer;

export interface Receiver {
  url: string;
  received: ReceivedRequest[];
  /** TCP connections accepted so far (keep-alive reuse shows as few connections). */
  connections(): number;
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => ({ status: 200 })): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const sockets = new Set<Socket>();
  let connectionCount = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      const index = received.push(request) - 1;
      const answer = respond(request, index);
      for (const waiter of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      if (answer === 'hang') return;
      res.writeHead(answer.status, { 'Content-Type': 'text/plain', ...answer.headers });
      res.end('ok');
    });
  });
  server.on('connection', (socket) => {
    connectionCount += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('receiver has no TCP address');

  return {
    url: `http://127.0.0.1:${address.port}`,
    received,
    connections: () => connectionCount,
    waitForRequests(count) {
      if (received.length >= count) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ count, resolve }));
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** A loopback URL on which nothing listens (a port that was just free). */
export async function unusedLoopbackUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}/hook`;
}

/** Counts of the handles that would keep a process alive. */
export function openHandleCounts(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of process.getActiveResourcesInfo()) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

/**
 * For a test file: a list of clean-ups run (newest first) after each of its tests, and a
 * receiver factory whose receivers are on it.
 */
export function closedAfterEach(): {
  cleanups: Array<() => Promise<void>>;
  receiver: (respond?: Responder) => Promise<Receiver>;
} {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    cleanups,
    receiver: async (respond) => {
      const r = await startReceiver(respond);
      cleanups.push(() => r.close());
      return r;
    },
  };
}
