// A test-only observer for a sandbox in another process: with SVC_SANDBOX_EXCHANGE_LOG=FILE,
// `svc sandbox start` appends each request and its answer to FILE as one JSON line, which the
// spawning test reads back and validates against the OpenAPI document once the process has ended.
// Written synchronously, line by line, so that even a process killed with SIGKILL leaves every
// answered exchange on disk. Request headers are left out (they carry credentials); bodies are
// Base64 so that binary media round-trips.
//
// A file that cannot be created, or a write that fails later (a full disk, a size limit, a
// read-only remount), is handed to the command, which words it by the file rule for writes
// (src/commands/sandbox/exchange-log.ts): a log that silently missed exchanges would let the test
// that reads it pass on what it never saw.

import { appendFileSync } from 'node:fs';
import type { HttpExchange } from './server.js';

export const EXCHANGE_LOG_ENV = 'SVC_SANDBOX_EXCHANGE_LOG';

/** One line of the exchange log. */
export interface LoggedExchange {
  method: string;
  url: string;
  requestContentType: string | null;
  /** Base64, or null when the handler did not read a body. */
  requestBody: string | null;
  status: number;
  responseHeaders: Record<string, string | number | string[]>;
  /** Base64. */
  responseBody: string;
}

/** Creates the log (or finds it writable) before anything is served; throws the system's error. */
export function openExchangeLog(file: string): void {
  appendFileSync(file, '');
}

/**
 * The observer that appends each exchange to `file`. The first write that fails goes to
 * `onFailure`, never thrown into the answer being sent; nothing more is written after it, so the
 * log ends at a line boundary or at the one line the failure cut.
 */
export function exchangeLogWriter(file: string, onFailure: (error: unknown) => void): (exchange: HttpExchange) => void {
  let failed = false;
  return (x) => {
    if (failed) return;
    const headers: LoggedExchange['responseHeaders'] = {};
    for (const [name, value] of Object.entries(x.responseHeaders)) if (value !== undefined) headers[name.toLowerCase()] = value;
    const line: LoggedExchange = {
      method: x.method,
      url: x.url,
      requestContentType: x.requestHeaders['content-type'] ?? null,
      requestBody: x.requestBody === null ? null : x.requestBody.toString('base64'),
      status: x.status,
      responseHeaders: headers,
      responseBody: x.responseBody.toString('base64'),
    };
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch (error) {
      failed = true;
      onFailure(error);
    }
  };
}
