import { Agent, createServer, request } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AcceptedWebhookEvent, RejectedWebhookRequest, WebhookSink } from '../../src/webhooks/listener.js';

export interface CollectingSink extends WebhookSink {
  events: AcceptedWebhookEvent[];
  rejections: RejectedWebhookRequest[];
}

export function collectingSink(): CollectingSink {
  const events: AcceptedWebhookEvent[] = [];
  const rejections: RejectedWebhookRequest[] = [];
  return {
    events,
    rejections,
    accepted: (event) => events.push(event),
    rejected: (rejection) => rejections.push(rejection),
  };
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface PostOptions {
  method?: string;
  headers?: OutgoingHttpHeaders;
  /** Send the body in chunks without a Content-Length (chunked transfer encoding). */
  chunked?: boolean;
  agent?: Agent;
}

export function post(url: string, body: string | Buffer, options: PostOptions = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const headers: OutgoingHttpHeaders = { 'Content-Type': 'application/json', ...options.headers };
    if (options.chunked !== true) headers['Content-Length'] = bytes.length;
    const outgoing = request(url, { method: options.method ?? 'POST', headers, agent: options.agent ?? false });
    outgoing.on('error', reject);
    outgoing.on('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    if (options.chunked === true) {
      const size = 64 * 1024;
      for (let offset = 0; offset < bytes.length; offset += size) outgoing.write(bytes.subarray(offset, offset + size));
      outgoing.end();
    } else {
      outgoing.end(bytes);
    }
  });
}

export interface RecordedRequest {
  method: string;
  url: string;
  rawHeaders: string[];
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface FakeApp {
  url: string;
  requests: RecordedRequest[];
  /** What the next requests get; defaults to 200 {"ok":true}. */
  respond: (request: RecordedRequest) => { status: number; body: string; headers?: OutgoingHttpHeaders };
  close(): Promise<void>;
}

/** A stand-in for the developer's app, on loopback port 0. */
export async function startFakeApp(): Promise<FakeApp> {
  const app: FakeApp = {
    url: '',
    requests: [],
    respond: () => ({ status: 200, body: '{"ok":true}' }),
    close: () => Promise.resolve(),
  };
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const recorded: RecordedRequest = {
        method: incoming.method ?? '?',
        url: incoming.url ?? '/',
        rawHeaders: incoming.rawHeaders,
        headers: incoming.headers,
        body: Buffer.concat(chunks),
      };
      app.requests.push(recorded);
      const answer = app.respond(recorded);
      response.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  app.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/svc?source=listener`;
  app.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return app;
}

/** A loopback port that nothing listens on (it was free a moment ago). */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
