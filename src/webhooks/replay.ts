// Sending a stored event again: the body byte for byte as it was received, with its event and
// delivery headers and a new X-Svc-Signature under the given secret.

import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { redactJsonText, traceHeaderValue } from '../api/redact.js';
import { signBody } from '../domain/signature.js';
import { WEBHOOK_DELIVERY_HEADER, WEBHOOK_DELIVERY_KEY, WEBHOOK_EVENT_HEADER, WEBHOOK_EVENT_KEY, WEBHOOK_SIGNATURE_HEADER } from '../domain/webhooks.js';

export interface ReplayAnswer {
  status: number;
  durationMs: number;
}

export interface StoredDelivery {
  /** The body as received. */
  body: Buffer;
  /** The delivery headers kept with it (lower-case names). */
  headers: Readonly<Record<string, string>>;
}

/** The headers of a replay: content type, event and delivery as stored, and a new signature. */
export function replayHeaders(delivery: StoredDelivery, secret: string): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': delivery.headers['content-type'] ?? 'application/json',
    'User-Agent': 'svc-cli events replay',
    [WEBHOOK_SIGNATURE_HEADER]: signBody(delivery.body, secret),
  };
  const eventName = delivery.headers[WEBHOOK_EVENT_KEY];
  if (eventName !== undefined) headers[WEBHOOK_EVENT_HEADER] = eventName;
  const deliveryId = delivery.headers[WEBHOOK_DELIVERY_KEY];
  if (deliveryId !== undefined) headers[WEBHOOK_DELIVERY_HEADER] = deliveryId;
  return headers;
}

/** How much of a body the --debug trace shows. */
const TRACE_TEXT = 4000;

function clipped(text: string): string {
  return text.length > TRACE_TEXT ? `${text.slice(0, TRACE_TEXT)}... [${text.length - TRACE_TEXT} more characters]` : text;
}

function traceAnswer(trace: (line: string) => void, status: number, headers: IncomingHttpHeaders, body: string, ms: number): void {
  trace(`< ${status} (${ms} ms)`);
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) trace(`< ${name}: ${traceHeaderValue(name, Array.isArray(value) ? value.join(', ') : value)}`);
  }
  if (body !== '') trace(`< ${clipped(redactJsonText(body))}`);
}

/**
 * POSTs the delivery, signed with `secret`, to `url`; resolves with the answer's status. `trace`
 * (--debug) hears the request and the answer, as the API client traces its own.
 */
export function replayDelivery(url: URL, delivery: StoredDelivery, secret: string, timeoutMs: number, signal: AbortSignal, trace?: (line: string) => void): Promise<ReplayAnswer> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers = { ...replayHeaders(delivery, secret), 'Content-Length': String(delivery.body.length) };
  if (trace !== undefined) {
    trace(`> POST ${url.href}`);
    for (const [name, value] of Object.entries(headers)) trace(`> ${name}: ${traceHeaderValue(name, value)}`);
    trace(`> [${delivery.body.length} bytes, the stored body byte for byte] ${clipped(redactJsonText(delivery.body.toString('utf8')))}`);
  }
  return new Promise((resolve, reject) => {
    const fail = (error: Error): void => {
      trace?.(`< ${error.message} (${elapsed()} ms)`);
      reject(error);
    };
    const outgoing = send(url, { method: 'POST', headers, signal });
    outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)));
    outgoing.on('error', fail);
    outgoing.on('response', (response) => {
      // The answer's text only for the trace, and only its start.
      let text = '';
      if (trace !== undefined) {
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (text.length <= TRACE_TEXT) text += chunk;
        });
      } else {
        response.resume();
      }
      response.on('end', () => {
        const durationMs = elapsed();
        if (trace !== undefined) traceAnswer(trace, response.statusCode ?? 0, response.headers, text, durationMs);
        resolve({ status: response.statusCode ?? 0, durationMs });
      });
      response.on('error', fail);
    });
    outgoing.end(delivery.body);
  });
}
