// How the webhook listener answers a request: the fixed 200 of an accepted event, any other
// answer, and draining the rest of a refused body so that the client gets to read the answer.

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';


// Beyond this, a rejected body is no longer drained but the connection is cut: draining keeps
// the connection usable and lets the client read the answer, but not for an unbounded upload.
const DRAIN_LIMIT_FACTOR = 4;

export const JSON_TYPE = 'application/json; charset=utf-8';


export function answer(response: ServerResponse, status: number, body: Buffer | string, headers: OutgoingHttpHeaders, closing: boolean): void {
  if (response.headersSent || response.destroyed) return;
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  const allHeaders: OutgoingHttpHeaders = { ...headers, 'Content-Length': length };
  if (closing) allHeaders['Connection'] = 'close';
  response.writeHead(status, allHeaders);
  response.end(body);
}

function received(deliveryId: string | null, duplicate: boolean): string {
  return `{"received":true,"duplicate":${duplicate},"deliveryId":${JSON.stringify(deliveryId)}}\n`;
}

/** The 200 an accepted event gets (the common answer: headers as a flat list, no object to build and walk). */
export function acknowledge(response: ServerResponse, deliveryId: string | null, duplicate: boolean, closing: boolean): void {
  if (response.headersSent || response.destroyed) return;
  const body = received(deliveryId, duplicate);
  const length = String(Buffer.byteLength(body));
  response.writeHead(200, closing ? ['Content-Type', JSON_TYPE, 'Content-Length', length, 'Connection', 'close'] : ['Content-Type', JSON_TYPE, 'Content-Length', length]);
  response.end(body);
}

/** Reads and discards the rest of a refused body, so that a client still sending gets to read the answer. */
export function drain(request: IncomingMessage, response: ServerResponse, maxBodyBytes: number): void {
  if (request.complete) return;
  const declared = Number(request.headers['content-length'] ?? '0');
  const drainLimit = maxBodyBytes * DRAIN_LIMIT_FACTOR;
  if (Number.isFinite(declared) && declared > drainLimit) {
    // Not worth reading: answer and close.
    response.setHeader('Connection', 'close');
    return;
  }
  // Cut the connection if it goes on far longer than announced.
  let drained = 0;
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > drainLimit) request.socket.destroy();
  });
  request.resume();
}
