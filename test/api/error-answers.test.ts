import { describe, expect, it } from 'vitest';
import { errorFromResponse, parseRetryAfter, readErrorBody } from '../../src/api/error-answers.js';
import { ApiError, AuthError, NotFoundError } from '../../src/errors.js';

describe('errorFromResponse', () => {
  const url = new URL('https://api.test/api/v1/tenants');
  const response = (status: number, text: string, data?: unknown) => ({ status, headers: {}, text, data });
  it.each([
    ['Authorization header is required', 'MISSING_AUTHORIZATION'],
    ['Invalid credentials', 'INVALID_CREDENTIALS'],
    ['Invalid authorization header format', 'INVALID_AUTHORIZATION_FORMAT'],
  ])('keeps the 401 body "%s" with its errorCode', (message, errorCode) => {
    const body = { message, title: 'Unauthorized', errorCode };
    const error = errorFromResponse(response(401, JSON.stringify(body), body), 'GET', url);
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toContain(message);
    expect(error.errorCode).toBe(errorCode);
    expect(error.title).toBe('Unauthorized');
    expect(error.exitCode).toBe(3);
  });
  it('says what a 401 without a body means', () => {
    const error = errorFromResponse(response(401, ''), 'GET', url);
    expect(error.exitCode).toBe(3);
    expect(error.message).toBe('The service refused the credentials (HTTP 401)');
  });
  it('shows a path with a malformed escape as sent instead of failing on it', () => {
    const body = { message: 'bad escape', errorCode: 'VALIDATION_ERROR' };
    const error = errorFromResponse(response(400, JSON.stringify(body), body), 'GET', new URL('https://api.test/api/v1/tenants/%zz'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe('The server refused GET /api/v1/tenants/%zz (400): bad escape');
  });
  it('maps 403 to exit 3 and 404 to exit 4', () => {
    expect(errorFromResponse(response(403, ''), 'GET', url).exitCode).toBe(3);
    const notFound = errorFromResponse(response(404, ''), 'GET', url);
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect(notFound.exitCode).toBe(4);
  });
  it('reads an HTML error page by its title, and a plain body by its first line', () => {
    const html = '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body>x</body></html>';
    expect(errorFromResponse(response(502, html), 'GET', url).message).toContain('502 Bad Gateway');
    expect(errorFromResponse(response(500, '\n  database is down\nstack...'), 'GET', url).message).toContain('database is down');
    expect(errorFromResponse(response(500, ''), 'GET', url).message).toContain('empty answer');
  });
  it('lists validation problems of an errors object', () => {
    const body = { title: 'One or more validation errors occurred.', errors: { 'phoneNumbers[0].number': ['not E.164'] } };
    expect(errorFromResponse(response(400, JSON.stringify(body), body), 'POST', url).message).toContain('phoneNumbers[0].number: not E.164');
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('5', now)).toBe(5000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('errorFromResponse by status', () => {
  const url = new URL('https://api.test/api/v1/tenants/t%201');
  const body = { message: 'no such thing', errorCode: 'X_CODE', title: 'Bad' };
  it.each([
    [401, AuthError, 3, 'no such thing (X_CODE)'],
    [403, AuthError, 3, 'Permission denied for DELETE /api/v1/tenants/t 1: no such thing'],
    [404, NotFoundError, 4, 'Not found: DELETE /api/v1/tenants/t 1: no such thing'],
    [400, ApiError, 1, 'The server refused DELETE /api/v1/tenants/t 1 (400): no such thing'],
    [409, ApiError, 1, 'The server refused DELETE /api/v1/tenants/t 1 (409): no such thing'],
    [413, ApiError, 1, 'The server refused DELETE /api/v1/tenants/t 1 (413): no such thing'],
    [415, ApiError, 1, 'The server refused DELETE /api/v1/tenants/t 1 (415): no such thing'],
    [422, ApiError, 1, 'The server refused DELETE /api/v1/tenants/t 1 (422): no such thing'],
    [429, ApiError, 1, 'DELETE /api/v1/tenants/t 1 failed with HTTP 429: no such thing'],
    [500, ApiError, 1, 'DELETE /api/v1/tenants/t 1 failed with HTTP 500: no such thing'],
    [503, ApiError, 1, 'DELETE /api/v1/tenants/t 1 failed with HTTP 503: no such thing'],
  ] as const)('maps %i to its typed error, exit code and message', (status, type, exitCode, message) => {
    const error = errorFromResponse({ status, text: JSON.stringify(body), data: body }, 'DELETE', url);
    expect(error).toBeInstanceOf(type);
    expect(error.exitCode).toBe(exitCode);
    expect(error.message).toBe(message);
    expect(error.status).toBe(status);
    expect(error.errorCode).toBe('X_CODE');
    expect(error.title).toBe('Bad');
  });

  it('says "Not found" without a message when the 404 had no body', () => {
    expect(errorFromResponse({ status: 404, text: '', data: undefined }, 'GET', url).message).toBe('Not found: GET /api/v1/tenants/t 1');
  });
});

describe('readErrorBody', () => {
  it.each([
    ['message, then error, then detail', { error: 'e', detail: 'd' }, '', { message: 'e', title: undefined, errorCode: undefined }],
    ['detail with a problem title and code', { detail: 'd', title: 'T', code: 'C' }, '', { message: 'd', title: 'T', errorCode: 'C' }],
    ['errorCode before code', { message: 'm', errorCode: 'A', code: 'B' }, '', { message: 'm', title: undefined, errorCode: 'A' }],
    ['the title when nothing else says why', { title: 'Only a title' }, '', { message: 'Only a title', title: 'Only a title', errorCode: undefined }],
    ['empty strings as absent', { message: '', error: '' }, '{"message":""}', { message: '{"message":""}', title: undefined, errorCode: undefined }],
    ['a message with its validation problems', { message: 'Invalid', errors: { a: ['x', 'y'], b: 'z' } }, '', { message: 'Invalid (a: x; y, b: z)', title: undefined, errorCode: undefined }],
    ['a JSON array body by its text', ['x'], '["x"]', { message: '["x"]', title: undefined, errorCode: undefined }],
    ['nothing at all', undefined, '  ', { message: 'empty answer', title: undefined, errorCode: undefined }],
  ])('reads %s', (_name, data, text, expected) => {
    expect(readErrorBody(data, text)).toEqual(expected);
  });
});
