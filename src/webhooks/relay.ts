// Relaying a verified event to the developer's own app: the original bytes and headers (less the
// hop-by-hop ones), on a keep-alive agent, bounded by a timeout; the app's answer comes back to be
// passed on to the sender.

import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { isHttpsOrLoopbackUrl } from '../domain/urls.js';
import { describeError, headerText } from './receive.js';
import type { ForwardResult } from './types.js';

/** The service gives an endpoint 10 s to answer; the relayed app gets the same. */
export const DEFAULT_FORWARD_TIMEOUT_MS = 10_000;

// Hop-by-hop headers (RFC 9110 section 7.6.1) belong to one connection and are never relayed.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
]);

/** The forward target: https, or http on a loopback host; anything else throws a TypeError saying so. */
export function checkForwardUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`forward URL ${JSON.stringify(value)} is not a URL`);
  }
  if (isHttpsOrLoopbackUrl(url)) return url;
  throw new TypeError(
    `forward URL ${JSON.stringify(value)} must be https://, or http:// on a loopback host (localhost, 127.0.0.0/8, [::1])`,
  );
}

function relayedRequestHeaders(request: IncomingMessage, target: URL, length: number): OutgoingHttpHeaders {
  const connectionTokens = new Set(
    (headerText(request.headers.connection) ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== ''),
  );
  const headers: OutgoingHttpHeaders = {};
  const raw = request.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index] ?? '';
    const value = raw[index + 1] ?? '';
    const lower = name.toLowerCase();
    // The body is relayed whole, so its length is ours to state and 100-continue is done with.
    if (HOP_BY_HOP.has(lower) || connectionTokens.has(lower)) continue;
    if (lower === 'host' || lower === 'content-length' || lower === 'expect') continue;
    const existing = headers[name];
    if (existing === undefined) headers[name] = value;
    else headers[name] = Array.isArray(existing) ? [...existing, value] : [String(existing), value];
  }
  headers['Host'] = target.host;
  headers['Content-Length'] = String(length);
  return headers;
}

function relayedResponseHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const connectionTokens = new Set(
    (headerText(headers.connection) ?? '').split(',').map((token) => token.trim().toLowerCase()),
  );
  const relayed: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || connectionTokens.has(name)) continue;
    if (name === 'content-length' || name === 'date') continue;
    relayed[name] = value;
  }
  return relayed;
}

export interface AppAnswer {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

export interface Relay {
  readonly target: URL;
  /** POSTs the body to the app; never rejects (an unreachable app is an answer of null). */
  send(request: IncomingMessage, body: Buffer): Promise<{ answer: AppAnswer | null; result: ForwardResult }>;
  /** Cuts every relay in flight (the listener is closing and out of patience). */
  abortAll(): void;
  /** Frees the agent's connections. */
  destroy(): void;
}

export function createRelay(target: URL, options: { timeoutMs?: number; maxBodyBytes: number }): Relay {
  const timeoutMs = options.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS;
  const agent = target.protocol === 'https:' ? new HttpsAgent({ keepAlive: true, maxSockets: 64 }) : new HttpAgent({ keepAlive: true, maxSockets: 64 });
  const post = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const inFlight = new Set<ClientRequest>();

  function send(request: IncomingMessage, body: Buffer): Promise<{ answer: AppAnswer | null; result: ForwardResult }> {
    const started = performance.now();
    return new Promise((resolve) => {
      let settled = false;
      const finish = (appAnswer: AppAnswer | null, error: string | null): void => {
        if (settled) return;
        settled = true;
        inFlight.delete(outgoing);
        resolve({
          answer: appAnswer,
          result: {
            url: target.href,
            status: appAnswer?.status ?? null,
            durationMs: Math.round((performance.now() - started) * 10) / 10,
            error,
          },
        });
      };
      const outgoing = post(target, { method: 'POST', headers: relayedRequestHeaders(request, target, body.length), agent });
      inFlight.add(outgoing);
      outgoing.setTimeout(timeoutMs, () => {
        outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`));
      });
      outgoing.on('error', (error) => finish(null, describeError(error)));
      outgoing.on('response', (appResponse) => {
        const chunks: Buffer[] = [];
        let total = 0;
        appResponse.on('data', (chunk: Buffer) => {
          // The app's answer is relayed to the sender, which only looks at the status; keep a bounded part.
          if (total < options.maxBodyBytes) chunks.push(chunk.subarray(0, options.maxBodyBytes - total));
          total += chunk.length;
        });
        appResponse.on('end', () =>
          finish({ status: appResponse.statusCode ?? 502, headers: relayedResponseHeaders(appResponse.headers), body: Buffer.concat(chunks) }, null),
        );
        appResponse.on('error', (error) => finish(null, `the app's answer broke off: ${describeError(error)}`));
        // An answer cut short may end with neither 'end' nor 'error'; after 'end' this does nothing.
        appResponse.on('close', () => finish(null, "the app's answer broke off before its end"));
      });
      outgoing.end(body);
    });
  }

  return {
    target,
    send,
    abortAll() {
      for (const outgoing of inFlight) outgoing.destroy(new Error('the listener is closing'));
    },
    destroy() {
      agent.destroy();
    },
  };
}
