import { describe, expect, it } from 'vitest';
import { isHttpsOrLoopbackUrl, isLoopbackHost } from '../../src/domain/urls.js';

// The one transport rule every URL we call or hand out follows: https://, or http:// to loopback.

describe('isHttpsOrLoopbackUrl', () => {
  it.each([
    ['https://api.example.com/x', true],
    ['https://127.0.0.1/', true],
    ['http://127.0.0.1:4010/media/a', true],
    ['http://127.9.0.1/', true],
    ['http://localhost:8080/hook', true],
    ['http://LOCALHOST./hook', true],
    ['http://app.localhost/', true],
    ['http://[::1]:9000/', true],
    ['http://example.com/', false],
    ['http://128.0.0.1/', false],
    ['http://localhost.example.com/', false],
    ['http://[::ffff:a00:1]/', false],
    ['ftp://localhost/', false],
    ['file:///etc/passwd', false],
    ['not a url', false],
    ['', false],
  ])('%s: %s', (value, accepted) => {
    expect(isHttpsOrLoopbackUrl(value)).toBe(accepted);
  });

  it('reads a parsed URL as its text', () => {
    expect(isHttpsOrLoopbackUrl(new URL('http://127.0.0.1/'))).toBe(true);
    expect(isHttpsOrLoopbackUrl(new URL('http://example.com/'))).toBe(false);
  });

  it('takes a loopback host in either spelling a URL gives it', () => {
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('0:0:0:0:0:0:0:1')).toBe(true);
    expect(isLoopbackHost('127.0.0.256')).toBe(false);
  });
});
