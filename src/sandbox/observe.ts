// What the sandbox shows of its traffic: every exchange, bodies included, to an observer (tests
// validate them against the OpenAPI document), and one log line per request (--log-requests).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { observedBodies } from './http-io.js';

/** One request and its answer, as an observer sees them. */
export interface HttpExchange {
  method: string;
  /** Path and query, as sent. */
  url: string;
  requestHeaders: IncomingMessage['headers'];
  /** null when the handler did not read a body. */
  requestBody: Buffer | null;
  status: number;
  responseHeaders: ReturnType<ServerResponse['getHeaders']>;
  responseBody: Buffer;
}

/** Hands the exchange to `observe` as the answer is handed over. */
export function watchExchange(req: IncomingMessage, res: ServerResponse, observe: (exchange: HttpExchange) => void): void {
  observedBodies.set(req, null);
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown): void => {
    if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  const headers = keepWrittenHeaders(res);
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.write = ((...args: unknown[]) => {
    keep(args[0]);
    return write(...args);
  }) as ServerResponse['write'];
  // Observed as the answer is handed over, not on 'finish': a process killed right after its
  // client has read the answer has already reported it.
  let seen = false;
  res.end = ((...args: unknown[]) => {
    if (typeof args[0] !== 'function') keep(args[0]);
    if (!seen) {
      seen = true;
      observe({
        method: req.method ?? '',
        url: req.url ?? '',
        requestHeaders: req.headers,
        requestBody: observedBodies.get(req) ?? null,
        status: res.statusCode,
        responseHeaders: { ...res.getHeaders(), ...headers } as HttpExchange['responseHeaders'],
        responseBody: Buffer.concat(chunks),
      });
    }
    return end(...args);
  }) as ServerResponse['end'];
}

/** writeHead(status, headers) does not put its headers where getHeaders() finds them: keep them. */
function keepWrittenHeaders(res: ServerResponse): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const given = args.find((a) => typeof a === 'object' && a !== null);
    if (Array.isArray(given)) {
      // The flat [name, value, ...] form of cached answers.
      for (let i = 0; i + 1 < given.length; i += 2) headers[String(given[i]).toLowerCase()] = given[i + 1];
    } else if (given) for (const [k, v] of Object.entries(given)) headers[k.toLowerCase()] = v;
    return writeHead(...args);
  }) as ServerResponse['writeHead'];
  return headers;
}

/** One line per request once it is answered: method, path (no query), status, time. */
export function logRequest(req: IncomingMessage, res: ServerResponse, write: (line: string) => void): void {
  const started = performance.now();
  res.on('finish', () => {
    const path = (req.url ?? '').split('?')[0];
    write(`${req.method ?? ''} ${path} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`);
  });
}
