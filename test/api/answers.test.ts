import { describe, expect, it } from 'vitest';
import { checkAnswer, safeLocation, type AnswerKind } from '../../src/api/answers.js';
import { classifyFailure } from '../../src/send/outcome.js';
import { ApiError, AuthError, InterruptedError, NetworkError, UnexpectedAnswerError } from '../../src/errors.js';

const url = new URL('https://api.test/api/v1/tenants');

function answer(status: number, text: string, extra: { headers?: Record<string, string>; invalidJson?: boolean } = {}) {
  let data: unknown;
  let invalidJson = extra.invalidJson ?? false;
  // As the HTTP layer reads a body served as application/json: anything non-empty is parsed.
  if (text.trim() !== '' && !text.trim().startsWith('<') && !text.startsWith('https:')) {
    try {
      data = JSON.parse(text);
    } catch {
      invalidJson = true;
    }
  }
  return { status, headers: extra.headers ?? {}, text, data, invalidJson };
}

function failure(kind: AnswerKind, a: ReturnType<typeof answer>): UnexpectedAnswerError | undefined {
  try {
    checkAnswer(a, kind, 'GET /tenants', url);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(UnexpectedAnswerError);
    return error as UnexpectedAnswerError;
  }
}

describe('checkAnswer: what a good answer is', () => {
  it.each([
    ['object', answer(200, '{"a":1}')],
    ['object', answer(201, '{"a":1}')],
    ['list', answer(200, '[]')],
    ['list', answer(200, '{"items":[],"total":0}')],
    ['object-or-empty', answer(204, '')],
    ['object-or-empty', answer(200, '{"a":1}')],
    ['any', answer(200, 'https://x.test/loa.pdf')],
    ['any', answer(204, '')],
  ] as const)('takes a %s answer', (kind, a) => {
    expect(failure(kind, a)).toBeUndefined();
  });

  it.each([
    ['object', answer(204, ''), 'HTTP 204 with an empty body, where a JSON object is due'],
    ['list', answer(204, ''), 'HTTP 204 with an empty body, where a JSON list is due'],
    ['object', answer(200, '<html><title>Sign in</title></html>'), 'HTTP 200 with "Sign in", not JSON (an HTML page)'],
    ['object', answer(200, '[1,2]'), 'HTTP 200 with a JSON array, where a JSON object is due'],
    ['list', answer(200, '{"total":3}'), 'HTTP 200 with a JSON object holding no list, where a JSON list is due'],
    ['object', answer(200, 'null'), 'HTTP 200 with JSON null'],
    ['object', answer(200, '{"messageId": "m-1", "sta'), 'not valid JSON (cut short or damaged)'],
    ['any', answer(200, '{"loaUrl": "htt'), 'not valid JSON'],
    ['object-or-empty', answer(200, '"done"'), 'HTTP 200 with a JSON string'],
    ['any', answer(101, ''), 'HTTP 101'],
  ] as const)('refuses a %s answer: %s', (kind, a, text) => {
    expect(failure(kind, a)?.message).toContain(text);
  });

  it.each([301, 302, 303, 307, 308])('names a %i redirect, where it pointed (no secrets), and the probable cause', (status) => {
    const error = failure('any', answer(status, '', { headers: { location: 'https://user:pw@login.example.com/sso?token=abc#x' } }))!;
    expect(error.status).toBe(status);
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain(`HTTP ${status} redirect to https://login.example.com/sso?...`);
    expect(error.message).toContain('the base URL is probably wrong');
    expect(error.message).not.toMatch(/pw|token|abc/);
    expect(error.location).toBe('https://login.example.com/sso?...');
  });

  it('says so when a redirect has no Location, and resolves a relative one', () => {
    expect(failure('object', answer(302, ''))?.message).toContain('HTTP 302 redirect without a Location');
    expect(safeLocation('/login', url)).toBe('https://api.test/login');
  });

  it('judges an error status the call takes as an answer by its body', () => {
    expect(() => checkAnswer(answer(503, '{"status":"Unhealthy"}'), 'object', 'GET /health', url, true)).not.toThrow();
    expect(() => checkAnswer(answer(503, '<html></html>'), 'object', 'GET /health', url, true)).toThrow(UnexpectedAnswerError);
  });
});

describe('classifyFailure: no recipient accepted without a readable 2xx', () => {
  it.each([
    ['a redirect', new UnexpectedAnswerError('302', { status: 302 }), 'unknown'],
    ['a 303 See Other', new UnexpectedAnswerError('303', { status: 303 }), 'unknown'],
    ['a 204', new UnexpectedAnswerError('204', { status: 204 }), 'unknown'],
    ['a 200 HTML page', new UnexpectedAnswerError('html', { status: 200 }), 'unknown'],
    ['a 1xx', new UnexpectedAnswerError('1xx', { status: 101 }), 'unknown'],
    ['a reset after sending', new NetworkError('reset', true), 'unknown'],
    ['a failure before sending', new NetworkError('refused', false), 'rejected'],
    ['a gateway 502', new ApiError('bad gateway', { status: 502 }), 'unknown'],
    ['a gateway 504', new ApiError('gateway timeout', { status: 504 }), 'unknown'],
    ['a 400', new ApiError('bad', { status: 400 }), 'rejected'],
    ['a 401', new AuthError('no', { status: 401 }), 'rejected'],
    ['a 500', new ApiError('boom', { status: 500 }), 'rejected'],
    ['Ctrl-C', new InterruptedError(), 'unknown'],
    ['a bug', new Error('bug'), 'unknown'],
  ])('%s is %s', (_name, error, outcome) => {
    expect(classifyFailure(error).outcome).toBe(outcome);
  });
});
