import type { LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import { chooseProxy, matchesNoProxy } from '../../src/api/proxy.js';
import { UsageError } from '../../src/errors.js';
import { isLoopbackAddress } from '../../src/domain/urls.js';
import { checkLoopbackSocket, NotLoopbackError, pinnedLookup } from '../../src/api/transport.js';

// Transport rules at the socket: names under localhost never go to DNS and
// resolve only to loopback; plain http:// needs a loopback peer; NO_PROXY in curl's forms.

type Answer = { error: Error | null; address?: unknown; family?: number };

/** A lookup that records what it was asked and answers from a table, like dns.lookup would. */
function fakeLookup(table: Record<string, string[]>): LookupFunction & { asked: string[] } {
  const asked: string[] = [];
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    const list = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if (options.all) callback(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  }) as unknown as LookupFunction & { asked: string[] };
  lookup.asked = asked;
  return lookup;
}

function resolve(lookup: LookupFunction, hostname: string, all = false): Promise<Answer> {
  return new Promise((done) => {
    (lookup as unknown as (h: string, o: object, cb: (...args: unknown[]) => void) => void)(hostname, { all }, (error: unknown, address: unknown, family: unknown) =>
      done({ error: error as Error | null, address, family: family as number }),
    );
  });
}

describe('names under localhost', () => {
  it('are looked up as localhost (the hosts file), never as themselves', async () => {
    const base = fakeLookup({ localhost: ['127.0.0.1'], 'api.localhost': ['203.0.113.7'] });
    const answer = await resolve(pinnedLookup(base), 'api.localhost');
    expect(answer.error).toBeNull();
    expect(answer.address).toBe('127.0.0.1');
    expect(base.asked).toEqual(['localhost']);
    const all = await resolve(pinnedLookup(base), 'Deep.Sub.LOCALHOST.', true);
    expect(all.address).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('are refused when localhost itself resolves to an address that is not loopback', async () => {
    const base = fakeLookup({ localhost: ['192.0.2.10'] });
    const answer = await resolve(pinnedLookup(base), 'svc.localhost');
    expect(answer.error).toBeInstanceOf(NotLoopbackError);
    expect(answer.error?.message).toContain('192.0.2.10');
  });

  it('leaves other names to the resolver', async () => {
    const base = fakeLookup({ 'api.example.com': ['198.51.100.1'] });
    const answer = await resolve(pinnedLookup(base), 'api.example.com');
    expect(answer.address).toBe('198.51.100.1');
    expect(base.asked).toEqual(['api.example.com']);
    expect(await resolve(pinnedLookup(base), 'localhost.example.com')).toMatchObject({ error: expect.any(Error) });
    expect(base.asked).toEqual(['api.example.com', 'localhost.example.com']);
  });
});

describe('the socket check', () => {
  it('takes a loopback peer for http:// and anything for https://', () => {
    expect(checkLoopbackSocket(new URL('http://a.localhost:1/'), '127.0.0.1')).toBeUndefined();
    expect(checkLoopbackSocket(new URL('http://[::1]:1/'), '::1')).toBeUndefined();
    expect(checkLoopbackSocket(new URL('http://localhost:1/'), '::ffff:127.0.0.1')).toBeUndefined();
    expect(checkLoopbackSocket(new URL('https://api.example.com/'), '198.51.100.1')).toBeUndefined();
  });

  it('refuses plain http:// that reached another address, naming it', () => {
    const refused = checkLoopbackSocket(new URL('http://api.localhost:8080/'), '10.0.0.5');
    expect(refused).toBeInstanceOf(NotLoopbackError);
    expect(refused?.message).toContain('api.localhost:8080 connected to 10.0.0.5');
    expect(checkLoopbackSocket(new URL('http://localhost/'), undefined)).toBeInstanceOf(NotLoopbackError);
  });

  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.2', true],
    ['128.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['fe80::1', false],
    ['localhost', false],
  ])('%s is loopback: %s', (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });
});

describe('NO_PROXY in the forms curl accepts', () => {
  it.each([
    ['*', 'api.example.com', 443, true],
    ['example.com', 'api.example.com', 443, true],
    ['example.com', 'example.com', 443, true],
    ['.example.com', 'api.example.com', 443, true],
    ['.example.com', 'example.com', 443, true],
    ['*.example.com', 'a.b.example.com', 443, true],
    ['example.com', 'badexample.com', 443, false],
    ['other.com, example.com', 'api.example.com', 443, true],
    ['other.com example.com', 'api.example.com', 443, true],
    ['other.com,,  ,example.com', 'api.example.com', 443, true],
    ['EXAMPLE.COM', 'Api.Example.Com', 443, true],
    ['example.com:8443', 'api.example.com', 8443, true],
    ['example.com:8443', 'api.example.com', 443, false],
    ['10.1.2.3', '10.1.2.3', 443, true],
    ['10.1.2.3', '10.1.2.4', 443, false],
    ['10.0.0.0/8', '10.200.3.4', 443, true],
    ['10.0.0.0/8', '11.0.0.1', 443, false],
    ['10.0.0.0/8', 'ten.example.com', 443, false],
    ['fd00::/8', 'fd12::1', 443, true],
    ['[fd12::1]:443', 'fd12::1', 443, true],
    ['', 'api.example.com', 443, false],
  ])('NO_PROXY=%j for %s:%i: direct %s', (noProxy, host, port, direct) => {
    expect(matchesNoProxy(host, port, noProxy)).toBe(direct);
  });

  const proxyEnv = { HTTPS_PROXY: 'http://user:pw@proxy.internal:3128' };
  it('chooses the proxy unless NO_PROXY matches, and never for loopback', () => {
    expect(chooseProxy(new URL('https://api.example.com'), proxyEnv)?.url.host).toBe('proxy.internal:3128');
    expect(chooseProxy(new URL('https://api.example.com'), { ...proxyEnv, NO_PROXY: '*' })).toBeUndefined();
    expect(chooseProxy(new URL('https://api.example.com'), { ...proxyEnv, no_proxy: '.example.com' })).toBeUndefined();
    expect(chooseProxy(new URL('https://localhost:4010'), proxyEnv)).toBeUndefined();
    expect(chooseProxy(new URL('https://x.localhost:4010'), proxyEnv)).toBeUndefined();
    expect(chooseProxy(new URL('https://127.0.0.9'), proxyEnv)).toBeUndefined();
    expect(chooseProxy(new URL('https://[::1]'), proxyEnv)).toBeUndefined();
    expect(chooseProxy(new URL('https://api.example.com'), { https_proxy: 'proxy.internal:8080' })?.url.href).toBe('http://proxy.internal:8080/');
    expect(chooseProxy(new URL('https://api.example.com'), { ALL_PROXY: 'http://all.internal:1' })?.variable).toBe('ALL_PROXY');
    expect(chooseProxy(new URL('https://api.example.com'), {})).toBeUndefined();
  });

  it('refuses a proxy URL it cannot use, without echoing its credentials', () => {
    expect(() => chooseProxy(new URL('https://api.example.com'), { HTTPS_PROXY: 'socks5://u:secretpw@proxy:1080' })).toThrow(/HTTPS_PROXY must be an http:\/\/ or https:\/\/ proxy URL, not socks5:\/\/proxy:1080/);
    const error = (() => {
      try {
        chooseProxy(new URL('https://api.example.com'), { HTTPS_PROXY: 'http://u:secretpw@[bad' });
        return undefined;
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect(String(error)).toContain('HTTPS_PROXY is not a proxy URL');
    expect(String(error)).not.toContain('secretpw');
  });
});
