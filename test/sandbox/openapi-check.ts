// Checks requests and answers against the sandbox's own OpenAPI document, with Ajv (JSON Schema
// 2020-12, the dialect of OpenAPI 3.1) and a small path matcher. Every sandbox the tests start
// in-process passes each exchange through it (helpers.ts and the CLI suites' own `observe`), and
// every `svc sandbox start` a test runs logs its exchanges to a file (SVC_SANDBOX_EXCHANGE_LOG)
// that ExchangeLogFiles validates: an answer that the document does not describe, or a 2xx to a
// request the document does not allow, is a violation.

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpExchange } from '../../src/sandbox/index.js';
import { EXCHANGE_LOG_ENV, type LoggedExchange } from '../../src/sandbox/exchange-log.js';
import { openApiDocument } from '../../src/sandbox/openapi.js';

type Json = Record<string, unknown>;
// ajv-formats is CommonJS: its default export is the function itself, or sits on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const DOC_ID = 'https://svc.example/openapi.json';
const document = openApiDocument();
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
addFormats(ajv);
ajv.addSchema({ ...document, $id: DOC_ID });

interface Operation {
  method: string;
  pattern: RegExp;
  template: string;
  pointer: string;
  op: Json;
}

const escape = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

const operations: Operation[] = [];
for (const [template, item] of Object.entries(document['paths'] as Record<string, Json>)) {
  const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
  for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
    const op = item[method];
    if (op && typeof op === 'object') {
      operations.push({ method: method.toUpperCase(), pattern, template, pointer: `#/paths/${escape(template)}/${method}`, op: op as Json });
    }
  }
}
// Literal paths first, so that /phone-numbers/active is not taken for /phone-numbers/{phoneNumber}.
operations.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));

const compiled = new Map<string, ValidateFunction>();
function validator(pointer: string): ValidateFunction {
  let v = compiled.get(pointer);
  if (!v) {
    v = ajv.compile({ $ref: `${DOC_ID}${pointer}` });
    compiled.set(pointer, v);
  }
  return v;
}

function errorsOf(v: ValidateFunction): string {
  return ajv.errorsText(v.errors, { separator: '; ' });
}

/** The violations of one exchange (empty when it conforms). */
export function checkExchange(x: HttpExchange): string[] {
  const method = x.method === 'HEAD' ? 'GET' : x.method;
  const [rawPath = ''] = x.url.split('?');
  const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
  const relative = path.startsWith('/api/v1/') ? path.slice('/api/v1'.length) : path;
  const where = `${x.method} ${path} -> ${x.status}`;
  const op = operations.find((o) => o.method === method && o.pattern.test(relative));
  if (!op) {
    // Paths outside the API answer 404/405 errors, which must still have the error shape.
    return x.status >= 400 ? checkError(x, where) : [`${where}: no operation in the document`];
  }
  const problems: string[] = [];
  const responses = op.op['responses'] as Record<string, Json>;
  const key = String(x.status) in responses ? String(x.status) : 'default';
  const response = responses[key];
  if (!response) return [`${where}: status not in the document`];
  const content = response['content'] as Record<string, unknown> | undefined;
  const type = String(x.responseHeaders['content-type'] ?? '');
  if (content === undefined) {
    if (x.responseBody.length > 0) problems.push(`${where}: the document gives no body, got ${x.responseBody.length} bytes`);
  } else if ('application/json' in content) {
    if (!type.startsWith('application/json')) problems.push(`${where}: content type ${type}, the document says application/json`);
    else if (x.method !== 'HEAD') {
      const v = validator(`${op.pointer}/responses/${key}/content/application~1json/schema`);
      if (!v(JSON.parse(x.responseBody.toString('utf8')))) problems.push(`${where}: answer: ${errorsOf(v)}`);
    }
  } else if (!Object.keys(content).some((t) => type.startsWith(t))) {
    problems.push(`${where}: content type ${type} is not one of ${Object.keys(content).join(', ')}`);
  }
  for (const [name, header] of Object.entries((response['headers'] ?? {}) as Record<string, Json>)) {
    const value = x.responseHeaders[name.toLowerCase()];
    if (value !== undefined && name === 'Retry-After' && !/^\d+$/.test(String(value))) problems.push(`${where}: Retry-After "${String(value)}"`);
    void header;
  }
  if (x.status === 429 && x.responseHeaders['retry-after'] === undefined) problems.push(`${where}: 429 without Retry-After`);
  // A request the document does not allow must not be accepted.
  const requestBody = op.op['requestBody'] as Json | undefined;
  if (x.status < 300 && requestBody && x.requestBody !== null) {
    const requestContent = requestBody['content'] as Record<string, unknown>;
    if ('application/json' in requestContent) {
      const v = validator(`${op.pointer}/requestBody/content/application~1json/schema`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(x.requestBody.toString('utf8'));
      } catch {
        parsed = Symbol('not JSON');
      }
      if (!v(parsed)) problems.push(`${where}: accepted a request the document refuses: ${errorsOf(v)}`);
    }
  }
  return problems;
}

function checkError(x: HttpExchange, where: string): string[] {
  const v = validator('#/components/schemas/Error');
  try {
    return v(JSON.parse(x.responseBody.toString('utf8'))) ? [] : [`${where}: error body: ${errorsOf(v)}`];
  } catch {
    return [`${where}: error body is not JSON`];
  }
}

/** The exchanges of one or more sandboxes and their violations; assertClean() when they have closed. */
export class ExchangeLog {
  readonly violations: string[] = [];
  count = 0;
  readonly observe = (x: HttpExchange): void => {
    this.count++;
    this.violations.push(...checkExchange(x));
  };

  /** Validates every exchange a spawned `svc sandbox start` wrote to its SVC_SANDBOX_EXCHANGE_LOG file. */
  addFile(file: string): void {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const logged = JSON.parse(line) as LoggedExchange;
      this.observe({
        method: logged.method,
        url: logged.url,
        requestHeaders: logged.requestContentType === null ? {} : { 'content-type': logged.requestContentType },
        requestBody: logged.requestBody === null ? null : Buffer.from(logged.requestBody, 'base64'),
        status: logged.status,
        responseHeaders: logged.responseHeaders,
        responseBody: Buffer.from(logged.responseBody, 'base64'),
      });
    }
  }

  /**
   * Fails on any violation; otherwise adds this log's count to the file named by
   * SVC_TEST_OPENAPI_TALLY (when set), so that a full run can say how many exchanges it validated.
   */
  assertClean(): void {
    if (this.violations.length > 0) {
      throw new Error(`${this.violations.length} exchange(s) of ${this.count} violate the OpenAPI document:\n${this.violations.slice(0, 20).join('\n')}`);
    }
    const tally = process.env['SVC_TEST_OPENAPI_TALLY'];
    if (tally && this.count > 0) appendFileSync(tally, `${this.count}\n`);
    this.count = 0;
  }
}

/**
 * Exchange logs of sandboxes in other processes (`svc sandbox start`, spawned or run through
 * main()): env() names a fresh file for one sandbox; check() validates everything written so far.
 */
export class ExchangeLogFiles {
  private readonly dir = mkdtempSync(join(tmpdir(), 'svc-exchanges-'));
  private readonly files: string[] = [];
  private readonly log = new ExchangeLog();
  private made = 0;

  /** The environment entry that makes one `svc sandbox start` log its exchanges. */
  env(): Record<string, string> {
    const file = join(this.dir, `${this.made++}.ndjson`);
    this.files.push(file);
    return { [EXCHANGE_LOG_ENV]: file };
  }

  /** Validates every file written so far (after their processes ended); fails on a violation; returns how many. */
  check(): number {
    for (const file of this.files.splice(0)) this.log.addFile(file);
    const count = this.log.count;
    this.log.assertClean();
    return count;
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A webhook payload checked against the document's `webhooks` entry for its event. */
export function checkWebhookPayload(event: 'MessageReceived' | 'DeliveryReceipt' | 'OrderStatus', payload: unknown): string[] {
  const v = validator(`#/webhooks/${event}/post/requestBody/content/application~1json/schema`);
  return v(payload) ? [] : [`webhook ${event}: ${errorsOf(v)}`];
}
