import { MockAgent, type Dispatcher } from 'undici';
import { registerRequestChecks } from './request-checks.js';

// An undici MockAgent for in-process tests: no request leaves the process, and the test fails
// (through request-checks.ts, after the test, with no call needed) when a request arrived that no
// stub matched (the command also sees it as a MockNotMatchedError) or a stub was never used.

export const MOCK_ORIGIN = 'https://api.test';
export const MOCK_ENV = {
  SVC_BASE_URL: MOCK_ORIGIN,
  SVC_USERNAME: 'user@example.com',
  SVC_PASSWORD: 'pa55-word-secret',
} as const;
export const BASIC_AUTH = `Basic ${Buffer.from(`${MOCK_ENV.SVC_USERNAME}:${MOCK_ENV.SVC_PASSWORD}`).toString('base64')}`;

export interface MockApi {
  agent: MockAgent;
  /** Expects one request; `path` is below /api/v1 and may include a query string. */
  expect(
    method: string,
    path: string,
    reply: { status: number; body?: unknown; headers?: Record<string, string> },
    check?: { body?: (body: unknown) => void; times?: number },
  ): void;
  /** Requests seen, in order, with their parsed JSON bodies. */
  seen: { method: string; path: string; body: unknown; headers: Record<string, string> }[];
  /** Fails now when a stub was not used; the same check runs by itself after every test. */
  verify(): void;
}

export function createMockApi(origin = MOCK_ORIGIN): MockApi {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const unexpected = recordUnmatched(agent);
  registerRequestChecks({
    takeUnexpected: () => unexpected.splice(0),
    unused: () => agent.pendingInterceptors().map((p) => `${p.method} ${p.origin}${p.path} (expected ${p.persist ? 'at least once' : `${p.times ?? 1} time(s)`})`),
  });
  const pool = agent.get(origin);
  const seen: MockApi['seen'] = [];
  return {
    agent,
    seen,
    expect(method, path, reply, check = {}) {
      const fullPath = `/api/v1/${path.replace(/^\//, '')}`;
      const interceptor = pool.intercept({ method, path: fullPath });
      const scope = interceptor.reply((options) => {
        const text = typeof options.body === 'string' ? options.body : options.body === undefined || options.body === null ? '' : Buffer.from(options.body as Uint8Array).toString('utf8');
        let body: unknown = text;
        try {
          body = text === '' ? undefined : (JSON.parse(text) as unknown);
        } catch {
          // not JSON: kept as text
        }
        const headers: Record<string, string> = {};
        const raw = options.headers as Record<string, string> | undefined;
        for (const [k, v] of Object.entries(raw ?? {})) headers[k.toLowerCase()] = String(v);
        seen.push({ method, path: fullPath, body, headers });
        check.body?.(body);
        const payload = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
        const contentType = typeof reply.body === 'string' ? 'text/plain' : 'application/json';
        return {
          statusCode: reply.status,
          data: payload,
          responseOptions: { headers: { ...(payload !== '' ? { 'content-type': contentType } : {}), ...reply.headers } },
        };
      });
      if (check.times !== undefined) scope.times(check.times);
    },
    verify() {
      agent.assertNoPendingInterceptors();
    },
  };
}

/**
 * Records each request no interceptor matched. MockAgent routes every request through the mock
 * pool of its origin (made on first use by get()); a pool that matches nothing throws
 * MockNotMatchedError from its dispatch, which undici then hands to the caller as the request's
 * error, where a command may turn it into any exit code. Wrapping each pool's dispatch sees it first.
 */
function recordUnmatched(agent: MockAgent): string[] {
  const unmatched: string[] = [];
  const wrapped = new WeakSet<object>();
  const get = agent.get.bind(agent);
  agent.get = ((origin: string) => {
    const pool = get(origin) as ReturnType<MockAgent['get']> & { dispatch: Dispatcher['dispatch'] };
    if (!wrapped.has(pool)) {
      wrapped.add(pool);
      const dispatch = pool.dispatch.bind(pool);
      pool.dispatch = (options, handler) => {
        try {
          return dispatch(options, handler);
        } catch (error) {
          if ((error as { code?: unknown }).code === 'UND_MOCK_ERR_MOCK_NOT_MATCHED') {
            unmatched.push(`${options.method} ${String(options.origin ?? origin)}${options.path}`);
          }
          throw error;
        }
      };
    }
    return pool;
  }) as MockAgent['get'];
  return unmatched;
}
