// What a route handler gets: the authenticated owner, path parameters, the query, the body
// readers, and the engine.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxEngine } from './engine.js';
import { parseJsonObject, readBody } from './http-io.js';
import type { JsonObject } from './fields.js';

/** JSON bodies other than media uploads. */
export const JSON_BODY_LIMIT = 1024 * 1024;

export class ApiCall {
  private parsedQuery: URLSearchParams | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly engine: SandboxEngine,
    readonly owner: string,
    readonly params: readonly string[],
    private readonly rawQuery: string,
  ) {}

  get query(): URLSearchParams {
    this.parsedQuery ??= new URLSearchParams(this.rawQuery);
    return this.parsedQuery;
  }

  param(index: number): string {
    return this.params[index] ?? '';
  }

  readRaw(limit: number, tooLargeText: string): Promise<Buffer> {
    return readBody(this.req, limit, tooLargeText);
  }

  async readJson(limit = JSON_BODY_LIMIT): Promise<JsonObject> {
    const raw = await readBody(this.req, limit, `The request body exceeds ${limit} bytes`);
    return parseJsonObject(raw);
  }
}

export type RouteHandler = (call: ApiCall) => Promise<void> | void;
