// A test-only observer for a sandbox in another process: with SVC_SANDBOX_EXCHANGE_LOG=FILE,
// `svc sandbox start` appends each request and its answer to FILE as one JSON line, which the
// spawning test reads back and validates against the OpenAPI document once the process has ended.
// Written synchronously, line by line, so that even a process killed with SIGKILL leaves every
// answered exchange on disk. Request headers are left out (they carry credentials); bodies are
// Base64 so that binary media round-trips.

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

export function exchangeLogWriter(file: string): (exchange: HttpExchange) => void {
  return (x) => {
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
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
}
