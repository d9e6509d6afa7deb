// A local receiver for the service's webhooks, composed of small parts: receive.ts checks each
// POST the way a production receiver should (Basic auth, content type, size, X-Svc-Signature over
// the raw bytes, JSON); deliveries.ts tells retries apart from new events; keep.ts stores each
// new event before it is acknowledged; relay.ts passes the original bytes on to the developer's
// own app; listener-requests.ts runs a request through them. Everything is reported to a sink, so
// that the command alone decides how to print. This module owns the HTTP server and its closing.

import { STATUS_CODES, createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { EventSink } from './keep.js';
import { WebhookRequestHandler } from './listener-requests.js';
import type { RequestHandlerOptions } from './listener-requests.js';
import type { BasicCredentials, WebhookSink } from './types.js';

export type { AcceptedWebhookEvent, BasicCredentials, ForwardResult, RejectedWebhookRequest, WebhookSink } from './types.js';
export type { EventSink } from './keep.js';
export { MAX_WEBHOOK_BODY_BYTES } from './receive.js';
export { checkForwardUrl, DEFAULT_FORWARD_TIMEOUT_MS } from './relay.js';
export { DEFAULT_DEDUPE_CAPACITY } from './listener-requests.js';

/** Everything a listener can be told; see RequestHandlerOptions for the part its requests read. */
export interface WebhookListenerOptions {
  /** Default 127.0.0.1: a listener is for local development unless asked otherwise. */
  host?: string;
  /** Default 0 (any free port); the command picks its own default. */
  port?: number;
  /** When set, every event must carry a valid X-Svc-Signature; several secrets allow rotation. */
  secrets?: string | readonly string[];
  /** When set, every event must carry these Basic credentials. */
  basicAuth?: BasicCredentials;
  /** The developer's app: https, or http on a loopback host. Valid events are relayed there. */
  forwardTo?: string;
  forwardTimeoutMs?: number;
  maxBodyBytes?: number;
  dedupeCapacity?: number;
  /** Wall clock for receivedAt; injectable for tests. */
  now?: () => Date;
  /** How long close() lets requests in flight finish before cutting their connections. */
  closeGraceMs?: number;
  /**
   * Where accepted events are kept: each new event is stored before the 2xx answer (as durably as
   * the sink's promise says: written, or synced), so that an acknowledged event survives a crash of
   * the listener; the sender retries what was not acknowledged.
   */
  store?: EventSink;
  /** Event ids already in the store (newest last), so that a restarted listener still deduplicates. */
  storedIds?: readonly string[];
  /** Work for each new event before it is kept and answered (see RequestHandlerOptions). */
  consent?: RequestHandlerOptions['consent'];
}

export interface WebhookListener {
  readonly host: string;
  readonly port: number;
  /** The URL to give the sender, e.g. http://127.0.0.1:4242/ */
  readonly url: string;
  /** Stops accepting, lets requests in flight finish (briefly), ends every socket. */
  close(): Promise<void>;
}

const LATEST_REQUEST = Symbol('svc.latestRequest');
type TrackedSocket = Socket & { [LATEST_REQUEST]?: IncomingMessage };

export async function startWebhookListener(options: WebhookListenerOptions, sink: WebhookSink): Promise<WebhookListener> {
  const host = options.host ?? '127.0.0.1';
  const closeGraceMs = options.closeGraceMs ?? 1000;
  const handler = new WebhookRequestHandler(options, sink);

  const server = createServer({ requestTimeout: 60_000, headersTimeout: 30_000 }, (request, response) => {
    // The latest request of each connection: a client that hangs up before that request's body
    // ended makes Node report the connection too, after the request itself was reported.
    (request.socket as TrackedSocket)[LATEST_REQUEST] = request;
    handler.handle(request, response);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const cutRequest = (socket as TrackedSocket)[LATEST_REQUEST];
    if (error.code === 'ECONNRESET' || !socket.writable || (error.code === 'HPE_INVALID_EOF_STATE' && cutRequest !== undefined && !cutRequest.complete)) {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Bad Request'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    handler.malformed(socket.remoteAddress, status, `malformed HTTP request (${error.code ?? error.message})`);
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closed: Promise<void> | undefined;
  return {
    host: address.address,
    port: address.port,
    url: `http://${urlHost}:${address.port}/`,
    close(): Promise<void> {
      closed ??= (async () => {
        handler.closing = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const grace = setTimeout(() => {
          handler.relay?.abortAll();
          server.closeAllConnections();
        }, closeGraceMs);
        await handler.idle();
        // Connections that served the last requests are idle now.
        server.closeIdleConnections();
        server.closeAllConnections();
        clearTimeout(grace);
        await stopped;
        handler.relay?.destroy();
      })();
      return closed;
    },
  };
}
