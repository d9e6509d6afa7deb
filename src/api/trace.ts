// The --debug trace of one exchange: the request line, headers and body going out, the status,
// headers and body coming back. Secrets are redacted (api/redact.ts); long bodies are cut short.

import { safeLocation } from './answers.js';
import { redactJsonText, traceHeaderValue } from './redact.js';

export function traceRequest(trace: (line: string) => void, method: string, url: URL, attempt: number, headers: Record<string, string>, body: Uint8Array | string | undefined): void {
  trace(`> ${method} ${url.href}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
  for (const [name, value] of Object.entries(headers)) trace(`> ${name}: ${traceHeaderValue(name, value)}`);
  if (body !== undefined) trace(`> ${describeBody(body, headers['content-type'] ?? '')}`);
}

export function traceAnswer(trace: (line: string) => void, answer: { status: number; headers: Record<string, string>; text: string }, url: URL, elapsedMs: number): void {
  trace(`< ${answer.status} (${Math.round(elapsedMs)} ms)`);
  for (const [name, value] of Object.entries(answer.headers)) {
    // A redirect's target is shown as the error shows it: no userinfo, no query.
    trace(`< ${name}: ${name === 'location' ? (safeLocation(value, url) ?? '') : traceHeaderValue(name, value)}`);
  }
  if (answer.text !== '') trace(`< ${truncate(redactJsonText(answer.text), 4000)}`);
}

function describeBody(body: Uint8Array | string, contentType: string): string {
  // Redacted before it is cut short: a cut JSON text no longer parses, and its secret-named fields would show.
  if (typeof body === 'string' && contentType.includes('json')) return truncate(redactJsonText(body), 4000);
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  return `[${length} bytes of ${contentType.split(';')[0] || 'data'}]`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}... [${text.length - max} more characters]` : text;
}
