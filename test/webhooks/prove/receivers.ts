import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

// Small webhook receivers on 127.0.0.1 port 0, written the way developers write them: the
// correct ones follow the verification examples of docs/webhooks-prove.md (Express, Fastify and
// Flask, here on node:http so that the tests need no framework), the faulty ones make the
// mistakes `svc webhook prove` is there to find. Every request is recorded, whatever its path.

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export type Handle = (request: ReceivedRequest) => Reply | Promise<Reply | undefined> | undefined;

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** A receiver; a handler that answers undefined leaves the request unanswered (until close). */
export async function startReceiver(handle: Handle): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(request);
      void Promise.resolve(handle(request)).then((reply) => {
        if (reply !== undefined) answer(res, reply);
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/svc`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function answer(res: ServerResponse, reply: Reply): void {
  res.writeHead(reply.status, { 'Content-Type': 'text/plain', ...reply.headers }).end(reply.body ?? '');
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

export interface ReceiverConfig {
  secrets: string[];
  /** USER:PASSWORD the sender must present, when configured. */
  basicAuth?: string;
}

// ---- Express: express.raw({ type: 'application/json', limit: '1mb' }), then the README's check ----

function expressSignatureIsValid(secrets: string[], rawBody: Buffer, value: string | undefined): boolean {
  if (typeof value !== 'string') return false;
  const given = Buffer.from(value.trim(), 'base64');
  if (given.length !== 32) return false;
  return secrets.some((secret) => {
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(rawBody).digest();
    return timingSafeEqual(expected, given);
  });
}

function basicAuthIsValid(expected: string, value: string | undefined): boolean {
  if (value === undefined || !value.startsWith('Basic ')) return false;
  const given = Buffer.from(value.slice(6).trim(), 'base64');
  const wanted = Buffer.from(expected, 'utf8');
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/**
 * The Express example: Basic credentials first (when configured), the raw body of at most 1 MB,
 * the signature over those bytes, then parse, drop a delivery already handled, and answer 200.
 * `beforeAnswer` runs for each valid event (the slow receiver advances the clock there).
 */
export function expressReceiver(config: ReceiverConfig, options: { beforeAnswer?: (request: ReceivedRequest) => void; skipBasicAuth?: boolean } = {}): Handle {
  const handled = new Set<string>();
  return (request) => {
    if (config.basicAuth !== undefined && options.skipBasicAuth !== true && !basicAuthIsValid(config.basicAuth, header(request.headers, 'authorization'))) {
      return { status: 401, headers: { 'WWW-Authenticate': 'Basic realm="webhooks"' }, body: 'Unauthorized' };
    }
    if (request.body.length > 1024 * 1024) return { status: 413, body: 'Payload Too Large' };
    if (!expressSignatureIsValid(config.secrets, request.body, header(request.headers, 'x-svc-signature'))) return { status: 401, body: 'Unauthorized' };
    JSON.parse(request.body.toString('utf8'));
    const delivery = header(request.headers, 'x-svc-delivery') ?? '';
    if (!handled.has(delivery)) handled.add(delivery); // ...and queue the event for the app
    options.beforeAnswer?.(request);
    return { status: 200, body: 'OK' };
  };
}

// ---- Fastify: a buffer content-type parser, the check in a preHandler, bodyLimit 1 MiB ----

export function fastifyReceiver(config: ReceiverConfig): Handle {
  const seen = new Set<string>();
  return (request) => {
    // Fastify's default bodyLimit is 1 MiB; over it the framework answers 413 itself.
    if (request.body.length > 1_048_576) return { status: 413, body: '{"statusCode":413,"error":"Payload Too Large"}' };
    if (config.basicAuth !== undefined && !basicAuthIsValid(config.basicAuth, header(request.headers, 'authorization'))) {
      return { status: 401, body: '{"error":"bad credentials"}', headers: { 'WWW-Authenticate': 'Basic' } };
    }
    const signature = header(request.headers, 'x-svc-signature') ?? '';
    const given = Buffer.from(signature, 'base64');
    const valid =
      given.length === 32 &&
      config.secrets.some((secret) => timingSafeEqual(createHmac('sha256', secret).update(request.body).digest(), given));
    if (!valid) return { status: 401, body: '{"error":"invalid signature"}' };
    const event = JSON.parse(request.body.toString('utf8')) as unknown;
    const id = header(request.headers, 'x-svc-delivery');
    if (id !== undefined && seen.has(id)) return { status: 200, body: '{"duplicate":true}' };
    if (id !== undefined) seen.add(id);
    void event;
    return { status: 202, body: '{"queued":true}' };
  };
}

// ---- Flask: request.get_data(), base64.b64decode(validate=True), hmac.compare_digest ----

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function flaskReceiver(config: ReceiverConfig): Handle {
  const processed = new Set<string>();
  return (request) => {
    if (config.basicAuth !== undefined && !basicAuthIsValid(config.basicAuth, header(request.headers, 'authorization'))) {
      return { status: 401, body: 'Unauthorized' };
    }
    const value = (header(request.headers, 'x-svc-signature') ?? '').trim();
    // b64decode(validate=True) raises on anything that is not strict Base64: abort(401).
    if (value === '' || !STRICT_BASE64.test(value)) return { status: 401, body: 'Unauthorized' };
    const given = Buffer.from(value, 'base64');
    const ok = config.secrets.some((secret) => {
      const digest = createHmac('sha256', Buffer.from(secret, 'utf8')).update(request.body).digest();
      return digest.length === given.length && timingSafeEqual(digest, given);
    });
    if (!ok) return { status: 401, body: 'Unauthorized' };
    const delivery = header(request.headers, 'x-svc-delivery') ?? '';
    if (processed.has(delivery)) return { status: 204 };
    processed.add(delivery);
    return { status: 204 };
  };
}

// ---- The mistakes ----

/** Trusts every request: works in every demo. */
export function noSignatureCheckReceiver(): Handle {
  return (request) => {
    JSON.parse(request.body.toString('utf8'));
    return { status: 200, body: 'OK' };
  };
}

/** Parses first, then signs its own re-serialisation (what body parsers lead to). */
export function reserialisingReceiver(config: ReceiverConfig): Handle {
  return (request) => {
    const event = JSON.parse(request.body.toString('utf8')) as unknown;
    const again = Buffer.from(JSON.stringify(event), 'utf8');
    return expressSignatureIsValid(config.secrets, again, header(request.headers, 'x-svc-signature')) ? { status: 200 } : { status: 401 };
  };
}

/** Answers 500 to everything (a receiver whose database is down). */
export function failingReceiver(): Handle {
  return () => ({ status: 500, body: 'Internal Server Error: relation "events" does not exist' });
}
