import { describe, expect, it } from 'vitest';
import { isHttpsOrLoopbackUrl, isLoopbackHost, urlWithoutCredentials } from '../../src/domain/urls.js';

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

describe('urlWithoutCredentials', () => {
  it('drops the user and the password, and keeps everything else', () => {
    expect(urlWithoutCredentials(new URL('https://alice:p%40ss@hooks.example.com:8443/in?x=1#top'))).toBe('https://hooks.example.com:8443/in?x=1#top');
    expect(urlWithoutCredentials(new URL('http://alice@127.0.0.1/'))).toBe('http://127.0.0.1/');
    expect(urlWithoutCredentials(new URL('http://:secret@localhost/'))).toBe('http://localhost/');
  });

  it('gives a URL without credentials as it is', () => {
    expect(urlWithoutCredentials(new URL('https://hooks.example.com/in'))).toBe('https://hooks.example.com/in');
  });
});
