// One request of the battery, as the service sends a webhook: a POST of the body to the URL
// given, nowhere else (a redirect is an answer, never followed), plain http:// only to an address
// that is loopback at the socket, within a deadline. What comes back is the status, the time to
// the status line (what the service's timeout measures) and the first words of the answer.

import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Clock } from '../../clock.js';
import { InterruptedError } from '../../errors.js';
import { checkLoopbackSocket, neverSent, pinnedLookup } from '../../api/transport.js';
import { visibleLine } from '../../output/terminal.js';

/** How much of an answer's body is kept to show; the rest is read and dropped, up to a bound. */
const SHOWN_BYTES = 200;
/** An answer body longer than this is cut off: the status is what counts. */
const READ_LIMIT_BYTES = 256 * 1024;

export interface ReceiverAnswer {
  /** The HTTP status, or null when no answer came. */
  status: number | null;
  /** Milliseconds from the request's start to the status line (or to the failure). */
  ms: number;
  /** Why no answer came (timeout, connection refused or reset), else null. */
  error: string | null;
  /** True when the connection failed before any byte of the request was sent. */
  notReached: boolean;
  /** The first words of the answer's body, on one line and safe for a terminal. */
  excerpt: string;
}

export interface PostTarget {
  url: URL;
  post(body: Buffer, headers: Record<string, string>, options: { timeoutMs: number; signal: AbortSignal }): Promise<ReceiverAnswer>;
  close(): void;
}


export async function openTarget(url: URL, clock: Clock): Promise<PostTarget> {
  const secure = url.protocol === 'https:';
  const module = secure ? await import('node:https') : await import('node:http');
  // A name under localhost is looked up only as localhost and must come back loopback; an IP
  // address is not looked up at all.
  const byName = isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0;
  const lookup = byName ? pinnedLookup((await import('node:dns')).lookup as LookupFunction) : undefined;
  const agent: HttpAgent | HttpsAgent = new module.Agent({ keepAlive: true, maxSockets: 1, ...(lookup && !secure ? { lookup } : {}) });

  function post(body: Buffer, headers: Record<string, string>, options: { timeoutMs: number; signal: AbortSignal }): Promise<ReceiverAnswer> {
    const started = clock.now();
    const deadline = clock.timeout(options.timeoutMs);
    return new Promise<ReceiverAnswer>((resolve, reject) => {
      let settled = false;
      let status: number | null = null;
      let statusMs = 0;
      const chunks: Buffer[] = [];
      let kept = 0;
      let read = 0;
      const cleanup = (): void => {
        deadline.removeEventListener('abort', onDeadline);
        options.signal.removeEventListener('abort', onInterrupt);
      };
      const settle = (answer: ReceiverAnswer): void => {
        if (settled) return;
        settled = true;
        cleanup();
        resolve(answer);
      };
      const fail = (error: unknown): void => {
        const ms = clock.now() - started;
        // An answer whose status arrived counts, even if its body then broke off.
        if (status !== null) return settle({ status, ms: statusMs, error: null, notReached: false, excerpt: excerptOf(chunks) });
        settle({ status: null, ms, error: describe(error), notReached: neverSent(error), excerpt: '' });
      };
      const onDeadline = (): void => {
        if (status !== null) {
          settle({ status, ms: statusMs, error: null, notReached: false, excerpt: excerptOf(chunks) });
        } else {
          settle({ status: null, ms: clock.now() - started, error: `no answer within ${seconds(options.timeoutMs)}`, notReached: false, excerpt: '' });
        }
        request.destroy();
      };
      const onInterrupt = (): void => {
        if (settled) return;
        settled = true;
        cleanup();
        request.destroy();
        reject(new InterruptedError());
      };

      const request = module.request(url, { method: 'POST', headers: { ...headers, 'Content-Length': String(body.length) }, agent });
      if (secure) request.end(body);
      else {
        // Nothing is written until the socket's peer has passed the loopback check.
        request.on('socket', (socket) => {
          const connected = (): void => {
            const refused = checkLoopbackSocket(url, socket.remoteAddress);
            if (refused) {
              fail(refused);
              request.destroy();
              return;
            }
            request.end(body);
          };
          if (socket.connecting) socket.once('connect', connected);
          else connected();
        });
      }
      request.on('error', fail);
      request.on('response', (response) => {
        status = response.statusCode ?? 0;
        statusMs = clock.now() - started;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (kept < SHOWN_BYTES) {
            chunks.push(chunk.subarray(0, SHOWN_BYTES - kept));
            kept += Math.min(chunk.length, SHOWN_BYTES - kept);
          }
          // The status is the answer; an endless body is not read to its end.
          if (read > READ_LIMIT_BYTES) {
            settle({ status: status ?? 0, ms: statusMs, error: null, notReached: false, excerpt: excerptOf(chunks) });
            response.destroy();
          }
        });
        response.on('end', () => settle({ status: status ?? 0, ms: statusMs, error: null, notReached: false, excerpt: excerptOf(chunks) }));
        response.on('error', fail);
        response.on('close', () => settle({ status: status ?? 0, ms: statusMs, error: null, notReached: false, excerpt: excerptOf(chunks) }));
      });
      if (deadline.aborted) return onDeadline();
      if (options.signal.aborted) return onInterrupt();
      deadline.addEventListener('abort', onDeadline, { once: true });
      options.signal.addEventListener('abort', onInterrupt, { once: true });
    });
  }

  return { url, post, close: () => agent.destroy() };
}

function excerptOf(chunks: Buffer[]): string {
  const text = Buffer.concat(chunks).toString('utf8').replace(/\uFFFD+$/, '');
  return visibleLine(text.replace(/\s+/g, ' ').trim());
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && !message.includes(code)) return `${code} ${message}`;
  return message;
}
