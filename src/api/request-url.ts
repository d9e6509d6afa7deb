// The URL of a request below the API root, and the request as the user knows it (`GET /tenants`).
// A bulk send sends tens of thousands of requests to one place, so the last of each is kept.

import { UsageError } from '../errors.js';
import { readablePath } from './error-answers.js';

export type QueryValue = string | number | boolean | undefined | null | readonly string[];
export type Query = Record<string, QueryValue>;

export class RequestUrls {
  constructor(private readonly root: URL) {}

  url(path: string, query?: Query): URL {
    const root = this.root;
    const url = new URL(path.replace(/^\/+/, ''), root);
    // URL resolution lets `\\host/x`, `http:host/x` or `../..` leave the API root; the request
    // would then carry the credentials to another host, or over plain HTTP past the transport rule.
    if (url.origin !== root.origin || !url.pathname.startsWith(root.pathname)) {
      throw new UsageError(`The path "${path}" leads outside ${root.href}; give a path under it, like /tenants`);
    }
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, String(v));
      else url.searchParams.set(key, String(value));
    }
    return url;
  }

  /** The last URL built, reused while requests keep going to the same place (a bulk send). */
  private last: { path: string; query: Query | undefined; frozen: Readonly<Query> | undefined; url: URL } | undefined;

  urlFor(path: string, query: Query | undefined): URL {
    const last = this.last;
    // A frozen query (a bulk send's, the same object each time) is the same query when it is the same object.
    if (last && last.path === path && ((last.frozen === query && query !== undefined) || sameQuery(last.query, query))) return last.url;
    const url = this.url(path, query);
    this.last = { path, query: query ? { ...query } : undefined, frozen: query !== undefined && Object.isFrozen(query) ? query : undefined, url };
    return url;
  }

  /** The last `where`, reused while requests keep going to the same place. */
  private lastWhere: { method: string; url: URL; text: string } | undefined;

  /** `GET /tenants`: a request as the user knows it, relative to the API root. */
  where(method: string, url: URL): string {
    const last = this.lastWhere;
    if (last !== undefined && last.url === url && last.method === method) return last.text;
    const rootPath = this.root.pathname;
    const path = url.pathname.startsWith(rootPath) ? `/${url.pathname.slice(rootPath.length)}` : url.pathname;
    const text = `${method} ${readablePath(path)}`;
    this.lastWhere = { method, url, text };
    return text;
  }
}

function sameQuery(a: Query | undefined, b: Query | undefined): boolean {
  if (a === b) return true;
  const keysA = Object.keys(a ?? {});
  const keysB = Object.keys(b ?? {});
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => {
    const x = a?.[key];
    const y = b?.[key];
    return Array.isArray(x) || Array.isArray(y) ? JSON.stringify(x) === JSON.stringify(y) : x === y;
  });
}
