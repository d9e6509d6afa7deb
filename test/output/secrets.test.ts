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
