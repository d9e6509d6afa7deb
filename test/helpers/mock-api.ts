import { MockAgent } from 'undici';

// An undici MockAgent for in-process tests: no request leaves the process, an unexpected request
// fails (MockNotMatchedError surfaces as the command's error), and verify() fails the test when
// an expected request was never made.

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
  verify(): void;
}

export function createMockApi(origin = MOCK_ORIGIN): MockApi {
  const agent = new MockAgent();
  agent.disableNetConnect();
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
