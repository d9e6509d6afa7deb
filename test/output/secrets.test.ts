import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { redactingStream } from '../../src/output/io.js';
import { registerEnvironmentSecrets, SecretRegistry } from '../../src/output/secrets.js';
import { SANDBOX_DEFAULT_USER } from '../../src/domain/sandbox-defaults.js';

// The one registry of secrets and the redactor at the output boundary.

const b64 = (text: string): string => Buffer.from(text).toString('base64');

describe('SecretRegistry', () => {
  it('redacts a secret in every form a server or trace could show it', () => {
    const registry = new SecretRegistry();
    const secret = 'pa ss/w+rd"9';
    registry.addCredentials('me@example.com', secret);
    for (const form of [
      secret,
      encodeURIComponent(secret),
      encodeURIComponent(secret).replace(/%20/g, '+'),
      JSON.stringify(secret).slice(1, -1),
      b64(secret),
      b64(secret).replace(/=+$/, ''),
      Buffer.from(secret).toString('base64url'),
      b64(`me@example.com:${secret}`),
      encodeURIComponent(b64(`me@example.com:${secret}`)),
    ]) {
      expect(registry.redact(`before ${form} after`), form).toBe('before [REDACTED] after');
    }
  });

  it('finds a form whose only escape is a plus for a space, and a plain form beside escapes elsewhere', () => {
    const registry = new SecretRegistry();
    registry.add('open sesame');
    expect(registry.redact('key=open+sesame&x=1')).toBe('key=[REDACTED]&x=1');
    expect(registry.redact('100% open sesame \\n')).toBe('100% [REDACTED] \\n');
    expect(registry.redact('open sesame, +1 555')).toBe('[REDACTED], +1 555');
    const unspaced = new SecretRegistry();
    unspaced.add('sesame-open');
    // A plus is no escape of a form without a space: it stays as written.
    expect(unspaced.redact('+sesame-open+ and sesame+open')).toBe('+[REDACTED]+ and sesame+open');
  });

  it('redacts a secret in every escaping a JSON or URL encoder may give its characters', () => {
    const registry = new SecretRegistry();
    const secret = 'Ëlan ß/é+😀"x';
    registry.add(secret);
    const units = (text: string, upper: boolean): string =>
      [...Array(text.length).keys()].map((i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`).map((e) => (upper ? e.toUpperCase().replace('\\U', '\\u') : e)).join('');
    // Python's json.dumps: everything past ASCII as \uXXXX (a surrogate pair for the emoji).
    const python = (upper: boolean): string => JSON.stringify(secret).slice(1, -1).replace(/[^\x00-\x7f]/g, (c) => units(c, upper));
    const percentLower = encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
    // What a form encoder writes: `+` for a space, and !'()~ escaped too.
    const form = new URLSearchParams({ s: secret }).toString().slice(2);
    for (const shown of [
      python(false),
      python(true),
      units(secret, false),
      units(secret, true),
      encodeURIComponent(secret),
      percentLower,
      form,
      form.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
      // Every byte percent-encoded, as some encoders do.
      [...Buffer.from(secret)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
      // A mixture: some characters escaped one way, some another, some not at all.
      `\\u00cblan%20\\u00DF\\/%c3%a9%2B\\ud83d\\uDE00\\"x`,
      // PHP's json_encode escapes the slash.
      JSON.stringify(secret).slice(1, -1).replace(/\//g, '\\/'),
    ]) {
      expect(registry.redact(`before ${shown} after`), shown).toBe('before [REDACTED] after');
    }
    // Base64 forms in their URL-encoded and JSON-escaped spellings too.
    const base64 = Buffer.from(secret).toString('base64');
    for (const shown of [encodeURIComponent(base64), encodeURIComponent(base64).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()), base64.replace(/\//g, '\\/')]) {
      expect(registry.redact(`[${shown}]`), shown).toBe('[[REDACTED]]');
    }
    // Nothing that merely resembles it.
    expect(registry.redact('Elan ss/e+x and \\u00cblan')).toBe('Elan ss/e+x and \\u00cblan');
  });

  it('finds the secret inside any longer Base64 text, at every alignment', () => {
    const registry = new SecretRegistry();
    registry.add('hunter2-hunter2');
    for (let pad = 0; pad < 6; pad++) {
      const encoded = b64(`${'x'.repeat(pad)}{"header":"hunter2-hunter2","more":"stuff"}`);
      const out = registry.redact(encoded);
      expect(out).toContain('[REDACTED]');
      // What is left cannot be decoded back to the secret at any offset.
      for (const part of out.split('[REDACTED]')) {
        for (let skip = 0; skip < 4; skip++) expect(Buffer.from(part.slice(skip), 'base64').toString('latin1')).not.toContain('hunter2-hunter2');
      }
    }
  });

  it('takes proxy credentials from a URL, decoded and as written', () => {
    const registry = new SecretRegistry();
    registry.addUrlCredentials('http://proxy%40user:p%40ss-word@proxy.internal:3128');
    expect(registry.redact('p@ss-word p%40ss-word')).toBe('[REDACTED] [REDACTED]');
    expect(registry.redact(b64('proxy@user:p@ss-word'))).toBe('[REDACTED]');
  });

  it('leaves short values and the public sandbox password alone as words, not their Base64', () => {
    const registry = new SecretRegistry([SANDBOX_DEFAULT_USER.password]);
    registry.addCredentials('sandbox@example.com', 'sandbox');
    registry.add('abc');
    expect(registry.redact('svc sandbox start; abc')).toBe('svc sandbox start; abc');
    expect(registry.redact(`Basic ${b64('sandbox@example.com:sandbox')}`)).toBe('Basic [REDACTED]');
  });

  it('registers what the environment and the secret-naming flags hold', () => {
    const registry = new SecretRegistry();
    registerEnvironmentSecrets(
      registry,
      { SVC_USERNAME: 'u@example.com', SVC_PASSWORD: 'env-password', HOOK: 'hook-secret-1', AUTH: 'hooks:basic-pw-1', HTTPS_PROXY: 'http://p:proxy-pw-1@proxy:1' },
      ['webhook', 'listen', '--secret-env', 'HOOK', '--basic-auth-env=AUTH'],
    );
    expect(registry.redact('env-password hook-secret-1 basic-pw-1 proxy-pw-1')).toBe('[REDACTED] [REDACTED] [REDACTED] [REDACTED]');
    expect(registry.redact(b64('u@example.com:env-password'))).toBe('[REDACTED]');
    expect(registry.redact(b64('hooks:basic-pw-1'))).toBe('[REDACTED]');
  });
});

describe('redactingStream', () => {
  it('redacts strings and bytes, keeps what else the stream is', async () => {
    const registry = new SecretRegistry();
    const target = Object.assign(new PassThrough(), { isTTY: true, columns: 99 });
    let written = '';
    target.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
    const stream = redactingStream(target, registry);
    stream.write('before registering: top-secret-1\n');
    registry.add('top-secret-1');
    stream.write('as text: top-secret-1\n');
    stream.write(Buffer.from('as bytes: top-secret-1\n'));
    stream.end('at the end: top-secret-1\n');
    await new Promise((resolve) => target.on('end', resolve));
    expect(written).toBe('before registering: top-secret-1\nas text: [REDACTED]\nas bytes: [REDACTED]\nat the end: [REDACTED]\n');
    expect(stream.isTTY).toBe(true);
    expect(stream.columns).toBe(99);
  });
});
