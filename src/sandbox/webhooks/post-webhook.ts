// One HTTP POST of a webhook body to one URI, on node:http/node:https directly (undici is the
// CLI client's module). The outcome is known as soon as the status line arrives; the rest of
// the answer is drained so that the keep-alive socket can carry the next delivery.

import http from 'node:http';
import https from 'node:https';
import type { OutgoingHttpHeaders } from 'node:http';
import { isHttpsOrLoopbackUrl } from '../../domain/urls.js';

export interface AttemptOutcome {
  /** HTTP status, or null when the connection failed or timed out. */
  status: number | null;
  error: string | null;
  /** The raw Retry-After header of a failed answer. */
  retryAfter: string | undefined;
  /** True when the attempt was cut short by close(): it says nothing about the endpoint. */
  aborted: boolean;
}

export interface InFlightPost {
  outcome: Promise<AttemptOutcome>;
  abort(): void;
}

export interface WebhookAgents {
  http: http.Agent;
  https: https.Agent;
  destroy(): void;
}

export function createWebhookAgents(maxSocketsPerHost: number): WebhookAgents {
  // Keep-alive matters most for loopback receivers in tests and the load test, where opening a
  // connection per delivery would dominate; the agents are destroyed on close().
  const options = { keepAlive: true, maxSockets: maxSocketsPerHost, scheduling: 'lifo' as const };
  const httpAgent = new http.Agent(options);
  const httpsAgent = new https.Agent(options);
  return {
    http: httpAgent,
    https: httpsAgent,
    destroy() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

/**
 * Why a webhook URI must not be called, or null when it may be: only https:// URIs, and
 * http:// URIs whose host is loopback (the sandbox's allowance for local listeners).
 */
export function webhookUriRefusal(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'refused webhook URI: not an absolute URL';
  }
  if (url.hostname === '') return `refused webhook URI ${describeUri(url)}: no host`;
  if (isHttpsOrLoopbackUrl(url)) return null;
  return `refused webhook URI ${describeUri(url)}: only https:// URIs, or http:// URIs on a loopback host, are called`;
}

function describeUri(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

export interface PostWebhookOptions {
  url: URL;
  body: Buffer;
  headers: OutgoingHttpHeaders;
  timeoutMs: number;
  agents: WebhookAgents;
}

export function postWebhook({ url, body, headers, timeoutMs, agents }: PostWebhookOptions): InFlightPost {
  const secure = url.protocol === 'https:';
  const request = (secure ? https : http).request({
    protocol: url.protocol,
    // URL keeps IPv6 literals in brackets; the socket layer wants them bare.
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? undefined : Number(url.port),
    // Any user:password in the URI is deliberately not sent: Basic auth comes from the tenant's
    // settings only, so that one place decides what credentials go out.
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers: { ...headers, 'Content-Length': body.length },
    agent: secure ? agents.https : agents.http,
  });

  let settle: (outcome: AttemptOutcome) => void = () => undefined;
  let settled = false;
  const outcome = new Promise<AttemptOutcome>((resolve) => {
    settle = (result) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
  });

  let finished = false;
  const finish = (): void => {
    finished = true;
    clearTimeout(timer);
  };
  // One timer per attempt in flight (bounded by the dispatcher's concurrency); it also bounds
  // the draining of an answer whose status already arrived.
  const timer = setTimeout(() => {
    settle({ status: null, error: `timed out after ${timeoutMs} ms`, retryAfter: undefined, aborted: false });
    request.destroy();
  }, timeoutMs);

  request.on('response', (response) => {
    const status = response.statusCode ?? null;
    const ok = status !== null && status >= 200 && status <= 299;
    settle({
      status,
      error: ok ? null : `answered HTTP ${status ?? '?'}`,
      retryAfter: ok ? undefined : headerValue(response.headers['retry-after']),
      aborted: false,
    });
    response.on('end', finish);
    response.on('close', finish);
    response.on('error', finish);
    response.resume();
  });
  request.on('error', (error: NodeJS.ErrnoException) => {
    finish();
    const reason = error.code !== undefined && !error.message.includes(error.code) ? `${error.code} ${error.message}` : error.message;
    settle({ status: null, error: `connection failed: ${reason}`, retryAfter: undefined, aborted: false });
  });
  request.end(body);

  return {
    outcome,
    abort() {
      settle({ status: null, error: 'aborted: dispatcher closed', retryAfter: undefined, aborted: true });
      if (!finished) finish();
      request.destroy();
    },
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
