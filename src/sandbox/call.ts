// What a route handler gets: the authenticated owner, path parameters, the query, the body
// readers, and the engine.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EndpointName, PathParams } from '../domain/api/endpoints.js';
import type { SandboxEngine } from './engine.js';
import { parseJsonObject, readBody } from './http-io.js';
import type { JsonObject } from './fields.js';

/** JSON bodies other than media uploads. */
export const JSON_BODY_LIMIT = 1024 * 1024;

/**
 * A request to endpoint K, its path parameters by name (decoded). `ApiCall` alone is a call to
 * any endpoint whose handler reads no path parameter.
 */
export class ApiCall<K extends EndpointName = never> {
  private parsedQuery: URLSearchParams | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly engine: SandboxEngine,
    /** The authenticated account; '' on an endpoint that needs no credentials. */
    readonly owner: string,
    readonly params: Readonly<PathParams<K>>,
    readonly rawQuery: string,
  ) {}

  get query(): URLSearchParams {
    this.parsedQuery ??= new URLSearchParams(this.rawQuery);
    return this.parsedQuery;
  }

  readRaw(limit: number, tooLargeText: string): Promise<Buffer> {
    return readBody(this.req, limit, tooLargeText);
  }

  async readJson(limit = JSON_BODY_LIMIT): Promise<JsonObject> {
    const raw = await readBody(this.req, limit, `The request body exceeds ${limit} bytes`);
    return parseJsonObject(raw);
  }
}

/** What answers a request to endpoint K. */
export type Handler<K extends EndpointName> = (call: ApiCall<K>) => Promise<void> | void;

/** A handler for every endpoint of the contract: one left out does not compile. */
export type RouteTable = { readonly [K in EndpointName]: Handler<K> };
