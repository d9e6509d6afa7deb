import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { registerRequestChecks } from './request-checks.js';

// A real HTTP server on 127.0.0.1 port 0 with a route table. A request no route handles is
// answered 599 and recorded in `unhandled`; request-checks.ts fails the test on it, and on a
// route that was never requested (after the file, for a server a beforeAll started).

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: Recorded, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: Recorded[];
  unhandled: Recorded[];
  /**
   * Adds a route; handlers for one route are used in order, the last one repeats. A route is
   * expected to be requested at least as many times as it has handlers.
   */
  on(method: string, path: string | RegExp, ...handlers: Handler[]): void;
  close(): Promise<void>;
}

export async function startTestServer(): Promise<TestServer> {
  const routes: { method: string; path: string | RegExp; handlers: Handler[]; calls: number }[] = [];
  const requests: Recorded[] = [];
  const unhandled: Recorded[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded: Recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      const pathname = new URL(recorded.url, 'http://x').pathname;
      const route = routes.find(
        (r) => r.method === recorded.method && (typeof r.path === 'string' ? r.path === pathname : r.path.test(pathname)),
      );
      if (!route) {
        unhandled.push(recorded);
        res.writeHead(599, { 'content-type': 'text/plain' }).end(`no route for ${recorded.method} ${recorded.url}`);
        return;
      }
      const handler = route.handlers[Math.min(route.calls, route.handlers.length - 1)]!;
      route.calls++;
      Promise.resolve(handler(recorded, res)).catch((error: unknown) => {
        res.writeHead(598).end(String(error));
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  let reported = 0;
  registerRequestChecks({
    takeUnexpected: () => unhandled.slice(reported, (reported = unhandled.length)).map((r) => `${r.method} ${r.url}`),
    unused: () =>
      routes
        .filter((r) => r.calls < r.handlers.length)
        .map((r) => `${r.method} ${String(r.path)} (requested ${r.calls} of ${r.handlers.length} times)`),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    unhandled,
    on(method, path, ...handlers) {
      routes.push({ method, path, handlers, calls: 0 });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
