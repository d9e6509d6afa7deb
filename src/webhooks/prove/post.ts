// One request of the battery, as the service sends a webhook: a POST of the body to the URL
// given, nowhere else (a redirect is an answer, never followed), plain http:// only to an address
// that is loopback at the socket, within a deadline. What comes back is the status, the time to
// the status line (what the service's timeout measures) and the first words of the answer.

import type { Agent as HttpAgent, ClientRequest, IncomingMessage } from 'node:http';
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


type HttpModule = typeof import('node:http') | typeof import('node:https');

/** What every request to one receiver shares: its URL, the client module and the one connection. */
interface Connection {
  url: URL;
  secure: boolean;
  module: HttpModule;
  agent: HttpAgent | HttpsAgent;
  clock: Clock;
}

export async function openTarget(url: URL, clock: Clock): Promise<PostTarget> {
  const secure = url.protocol === 'https:';
  const module: HttpModule = secure ? await import('node:https') : await import('node:http');
  // A name under localhost is looked up only as localhost and must come back loopback; an IP
  // address is not looked up at all.
  const byName = isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0;
  const lookup = byName ? pinnedLookup((await import('node:dns')).lookup as LookupFunction) : undefined;
  const agent: HttpAgent | HttpsAgent = new module.Agent({ keepAlive: true, maxSockets: 1, ...(lookup && !secure ? { lookup } : {}) });
  const connection: Connection = { url, secure, module, agent, clock };
  return { url, post: (body, headers, options) => post(connection, body, headers, options), close: () => agent.destroy() };
}

/** The answer of one request as it comes in: when its status line came, and the start of its body. */
class IncomingAnswer {
  status: number | null = null;
  statusMs = 0;
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private read = 0;

  /** Keeps the start of the body; false once more than the read limit has come. */
  add(chunk: Buffer): boolean {
    this.read += chunk.length;
    if (this.kept < SHOWN_BYTES) {
      this.chunks.push(chunk.subarray(0, SHOWN_BYTES - this.kept));
      this.kept += Math.min(chunk.length, SHOWN_BYTES - this.kept);
    }
    return this.read <= READ_LIMIT_BYTES;
  }

  /** The answer as it stands once its status has come. */
  answered(): ReceiverAnswer {
    return { status: this.status ?? 0, ms: this.statusMs, error: null, notReached: false, excerpt: excerptOf(this.chunks) };
  }
}

/** One POST, settled once: by the answer, a failure, the deadline or an interrupt, whichever comes first. */
function post(connection: Connection, body: Buffer, headers: Record<string, string>, options: { timeoutMs: number; signal: AbortSignal }): Promise<ReceiverAnswer> {
  const { url, clock } = connection;
  const started = clock.now();
  const deadline = clock.timeout(options.timeoutMs);
  return new Promise<ReceiverAnswer>((resolve, reject) => {
    const incoming = new IncomingAnswer();
    let settled = false;
    const finish = (outcome: ReceiverAnswer | InterruptedError): void => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener('abort', onDeadline);
      options.signal.removeEventListener('abort', onInterrupt);
      if (outcome instanceof InterruptedError) reject(outcome);
      else resolve(outcome);
    };
    const fail = (error: unknown): void => {
      const ms = clock.now() - started;
      // An answer whose status arrived counts, even if its body then broke off.
      if (incoming.status !== null) return finish(incoming.answered());
      finish({ status: null, ms, error: describe(error), notReached: neverSent(error), excerpt: '' });
    };
    const onDeadline = (): void => {
      if (incoming.status !== null) finish(incoming.answered());
      else finish({ status: null, ms: clock.now() - started, error: `no answer within ${seconds(options.timeoutMs)}`, notReached: false, excerpt: '' });
      request.destroy();
    };
    const onInterrupt = (): void => {
      if (settled) return;
      finish(new InterruptedError());
      request.destroy();
    };

    const request = connection.module.request(url, { method: 'POST', headers: { ...headers, 'Content-Length': String(body.length) }, agent: connection.agent });
    if (connection.secure) request.end(body);
    else sendOnceLoopback(request, url, body, fail);
    request.on('error', fail);
    request.on('response', (response) => readAnswer(response, incoming, clock.now() - started, finish, fail));
    if (deadline.aborted) return onDeadline();
    if (options.signal.aborted) return onInterrupt();
    deadline.addEventListener('abort', onDeadline, { once: true });
    options.signal.addEventListener('abort', onInterrupt, { once: true });
  });
}

/** Writes the body only once the socket's peer has passed the loopback check (plain http://). */
function sendOnceLoopback(request: ClientRequest, url: URL, body: Buffer, fail: (error: unknown) => void): void {
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

/** Reads an answer: its status is what counts, and only the start of an endless body is read. */
function readAnswer(response: IncomingMessage, incoming: IncomingAnswer, statusMs: number, finish: (answer: ReceiverAnswer) => void, fail: (error: unknown) => void): void {
  incoming.status = response.statusCode ?? 0;
  incoming.statusMs = statusMs;
  response.on('data', (chunk: Buffer) => {
    if (incoming.add(chunk)) return;
    finish(incoming.answered());
    response.destroy();
  });
  response.on('end', () => finish(incoming.answered()));
  response.on('error', fail);
  response.on('close', () => finish(incoming.answered()));
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
