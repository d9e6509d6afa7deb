// Which handler answers a request: the route table (a handler for every endpoint of the
// contract) matched by method and path, with the service's 404 and 405 answers, the public
// endpoints (the OpenAPI document, hosted media links) answered before authentication, and the
// faults the sandbox injects into API answers.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_PREFIX, ENDPOINTS, placeholders, type EndpointName } from '../domain/api/endpoints.js';
import type { BasicAuthenticator } from './auth.js';
import { ApiCall, type RouteTable } from './call.js';
import type { SandboxEngine } from './engine.js';
import { ApiError } from './errors.js';

interface Route {
  name: EndpointName;
  method: string;
  /** Path segments after the API prefix; null marks a parameter. */
  segments: (string | null)[];
  /** The names of the parameters, in order. */
  names: string[];
}

/** The routes whose path matches one request path, each with its decoded parameters (null: bad URL encoding). */
type PathMatch = { route: Route; params: Readonly<Record<string, string>> | null }[];

// Path matches by path, so that a read repeated on one resource (the common case) does no
// splitting, matching or decoding. Bounded: message ids are endless, so it starts over when full.
// Long paths (no route has one) are matched each time, so that the cache stays small.
const MATCH_CACHE_LIMIT = 4096;
const MATCH_KEY_LIMIT = 200;

const OPENAPI_PATH = ENDPOINTS.getOpenApi.path;
/** `/media/`: where hosted media links start, beside the API. */
const MEDIA_LINK_PREFIX = ENDPOINTS.getMedia.path.slice(0, ENDPOINTS.getMedia.path.indexOf('{'));

export class Router {
  private readonly routes: Route[];
  private readonly matches = new Map<string, PathMatch>();

  constructor(
    private readonly handlers: RouteTable,
    private readonly engine: SandboxEngine,
    private readonly auth: BasicAuthenticator,
    /** Answers a fault instead of the request (true when it did); API endpoints only. */
    private readonly injectFault: (req: IncomingMessage, res: ServerResponse) => boolean,
  ) {
    // The public endpoints are answered before authentication, above; the rest by this table.
    this.routes = (Object.keys(ENDPOINTS) as EndpointName[])
      .filter((name) => !('public' in ENDPOINTS[name]))
      .map((name) => {
        const { method, path } = ENDPOINTS[name];
        return { name, method, segments: path.split('/').filter(Boolean).map((s) => (s.startsWith('{') ? null : s)), names: placeholders(path) };
      });
  }

  // handle() and api() return the handler's promise only when it has one: reads answer
  // synchronously, with no promise, closure or microtask of their own on the hot path.
  handle(req: IncomingMessage, res: ServerResponse): Promise<void> | void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    let path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    if (path.startsWith(MEDIA_LINK_PREFIX)) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'Media links answer GET and HEAD only', { Allow: 'GET, HEAD' });
      }
      const [mediaId = '', ...name] = path.slice(MEDIA_LINK_PREFIX.length).split('/');
      const raw = { mediaId, fileName: name.join('/') };
      // A link that is not valid URL encoding names no media: the handler answers 404 for it.
      const params = (decodeParams(['mediaId', 'fileName'], [raw.mediaId, raw.fileName]) as typeof raw | null) ?? raw;
      return this.handlers.getMedia(new ApiCall(req, res, this.engine, '', params, query));
    }
    if (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`)) {
      throw new ApiError(404, 'NOT_FOUND', `No endpoint at ${path}; the API is under ${API_PREFIX}`);
    }
    const rest = path.slice(API_PREFIX.length);
    if (rest === OPENAPI_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      // No authentication: it describes the API and holds nothing.
      return this.handlers.getOpenApi(new ApiCall(req, res, this.engine, '', {}, query));
    }
    // The sandbox's own control endpoints stay reliable so that tests and the CLI can drive it.
    if (!rest.startsWith('/sandbox/') && this.injectFault(req, res)) return;
    return this.api(req, res, rest, query);
  }

  private api(req: IncomingMessage, res: ServerResponse, rest: string, query: string): Promise<void> | void {
    const owner = this.auth.authenticate(req.headers.authorization);
    const found = this.match(rest);
    const method = req.method;
    for (let i = 0; i < found.length; i++) {
      const m = found[i] as PathMatch[number];
      if (m.route.method !== method && !(m.route.method === 'GET' && method === 'HEAD')) continue;
      if (m.params === null) throw badEncoding(rest);
      const handler = this.handlers[m.route.name] as (call: ApiCall<EndpointName>) => Promise<void> | void;
      return handler(new ApiCall(req, res, this.engine, owner, m.params as ApiCall<EndpointName>['params'], query));
    }
    if (found.length > 0) {
      throw new ApiError(405, 'METHOD_NOT_ALLOWED', `${method ?? ''} is not allowed on ${API_PREFIX}${rest}`, {
        Allow: [...new Set(found.map((m) => m.route.method))].join(', '),
      });
    }
    throw new ApiError(404, 'NOT_FOUND', `No endpoint ${method ?? ''} ${API_PREFIX}${rest}`);
  }

  private match(rest: string): PathMatch {
    let found = this.matches.get(rest);
    if (found === undefined) {
      found = this.matchPath(rest);
      if (rest.length <= MATCH_KEY_LIMIT) {
        if (this.matches.size >= MATCH_CACHE_LIMIT) this.matches.clear();
        this.matches.set(rest, found);
      }
    }
    return found;
  }

  private matchPath(rest: string): PathMatch {
    const parts = rest.split('/').filter(Boolean);
    const found: PathMatch = [];
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const values: string[] = [];
      const fits = route.segments.every((want, i) => {
        const part = parts[i] as string;
        if (want === null) values.push(part);
        return want === null || want === part;
      });
      if (fits) found.push({ route, params: decodeParams(route.names, values) });
    }
    return found;
  }
}

/** The parameters by name, percent-decoded; null when one is not valid URL encoding. */
function decodeParams(names: readonly string[], values: readonly string[]): Readonly<Record<string, string>> | null {
  const params: Record<string, string> = {};
  try {
    names.forEach((name, i) => {
      const value = values[i] as string;
      params[name] = value.includes('%') ? decodeURIComponent(value) : value;
    });
  } catch {
    return null;
  }
  return Object.freeze(params);
}

function badEncoding(rest: string): ApiError {
  const bad = rest.split('/').find((p) => {
    try {
      decodeURIComponent(p);
      return false;
    } catch {
      return true;
    }
  });
  return new ApiError(400, 'VALIDATION_ERROR', `The path segment "${bad ?? ''}" is not valid URL encoding`);
}
