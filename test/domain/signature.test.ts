import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { signatureVectors } from '../helpers/vectors.js';
import { signBody, verifySignature } from '../../src/domain/signature.js';

const vectors = signatureVectors;

const secret = 'whsec-tenant-A-0001';
const body = '{ "event": "message.delivered", "id": "evt_0001" }\r\n';

describe('signature vectors', () => {
  it('holds the five published vectors', () => {
    expect(vectors.map((vector) => vector.name)).toEqual([
      'json-ascii',
      'empty-body',
      'json-non-ascii-body',
      'non-ascii-secret',
      'whitespace-crlf-body',
    ]);
  });

  for (const vector of vectors) {
    describe(vector.name, () => {
      const bytes = Buffer.from(vector.bodyUtf8Hex, 'hex');

      it('the hex bytes are the UTF-8 encoding of the body', () => {
        expect(Buffer.from(vector.body, 'utf8').equals(bytes)).toBe(true);
      });

      it('signs the body string to the published signature', () => {
        expect(signBody(vector.body, vector.secret)).toBe(vector.xSvcSignature);
      });

      it('signs the raw bytes to the published signature', () => {
        expect(signBody(bytes, vector.secret)).toBe(vector.xSvcSignature);
        expect(signBody(new Uint8Array(bytes), vector.secret)).toBe(vector.xSvcSignature);
      });

      it('verifies the published signature over the string and over the bytes', () => {
        expect(verifySignature(vector.body, vector.xSvcSignature, vector.secret)).toEqual({
          valid: true,
          secretIndex: 0,
        });
        expect(verifySignature(bytes, vector.xSvcSignature, vector.secret)).toEqual({
          valid: true,
          secretIndex: 0,
        });
      });

      it('rejects the published signature under a different secret', () => {
        expect(verifySignature(bytes, vector.xSvcSignature, `${vector.secret}x`)).toEqual({
          valid: false,
          reason: 'mismatch',
        });
      });

      it('rejects a tampered body', () => {
        const tampered = Buffer.concat([bytes, Buffer.from(' ')]);
        expect(verifySignature(tampered, vector.xSvcSignature, vector.secret)).toEqual({
          valid: false,
          reason: 'mismatch',
        });
      });
    });
  }
});

describe('signBody', () => {
  it('is HMAC-SHA256 keyed with the UTF-8 secret, Base64 encoded', () => {
    const expected = createHmac('sha256', Buffer.from('clé', 'utf8')).update('abc').digest('base64');
    expect(signBody('abc', 'clé')).toBe(expected);
    // A Latin-1 encoded key would give a different digest: the secret must be taken as UTF-8.
    const latin1 = createHmac('sha256', Buffer.from('clé', 'latin1')).update('abc').digest('base64');
    expect(signBody('abc', 'clé')).not.toBe(latin1);
  });

  it('gives a 44-character canonical Base64 string of 32 bytes', () => {
    const signature = signBody(body, secret);
    expect(signature).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(signature, 'base64')).toHaveLength(32);
  });
});

describe('verifySignature', () => {
  const good = signBody(body, secret);

  it('accepts surrounding whitespace in the header value', () => {
    expect(verifySignature(body, `  ${good} `, secret).valid).toBe(true);
  });

  it('rejects every single-byte change of the body', () => {
    const bytes = Buffer.from(body, 'utf8');
    for (let index = 0; index < bytes.length; index += 1) {
      const tampered = Buffer.from(bytes);
      tampered[index] = (tampered[index] ?? 0) ^ 0x01;
      expect(verifySignature(tampered, good, secret)).toEqual({ valid: false, reason: 'mismatch' });
    }
  });

  it('rejects a truncated or extended body', () => {
    expect(verifySignature(body.slice(0, -1), good, secret).valid).toBe(false);
    expect(verifySignature(body.slice(1), good, secret).valid).toBe(false);
    expect(verifySignature(`${body}\n`, good, secret).valid).toBe(false);
  });

  it('rejects wrong secrets, including near misses and a different case', () => {
    for (const wrong of ['whsec-tenant-A-0002', 'WHSEC-TENANT-A-0001', `${secret} `, '', 'x']) {
      expect(verifySignature(body, good, wrong)).toEqual({ valid: false, reason: 'mismatch' });
    }
  });

  it('fails re-encoded JSON: the raw bytes are what is signed', () => {
    const reencoded = JSON.stringify(JSON.parse(body));
    expect(reencoded).not.toBe(body);
    expect(verifySignature(reencoded, good, secret)).toEqual({ valid: false, reason: 'mismatch' });
  });

  it('fails a body re-encoded from another character set', () => {
    const text = '{"text":"Grüße"}';
    const signature = signBody(text, secret);
    expect(verifySignature(Buffer.from(text, 'latin1'), signature, secret).valid).toBe(false);
    expect(verifySignature(Buffer.from(text, 'utf8'), signature, secret).valid).toBe(true);
  });

  it('calls a missing or blank signature missing', () => {
    expect(verifySignature(body, undefined, secret)).toEqual({ valid: false, reason: 'missing' });
    expect(verifySignature(body, '', secret)).toEqual({ valid: false, reason: 'missing' });
    expect(verifySignature(body, '   ', secret)).toEqual({ valid: false, reason: 'missing' });
  });

  it('calls a truncated signature malformed', () => {
    for (const cut of [good.slice(0, -1), good.slice(0, -2), good.slice(0, 40), good.slice(4)]) {
      expect(verifySignature(body, cut, secret)).toEqual({ valid: false, reason: 'malformed' });
    }
  });

  it('calls a well-formed Base64 value of the wrong length malformed', () => {
    const short = Buffer.from(good, 'base64').subarray(0, 31).toString('base64');
    const long = Buffer.concat([Buffer.from(good, 'base64'), Buffer.from([0])]).toString('base64');
    expect(verifySignature(body, short, secret)).toEqual({ valid: false, reason: 'malformed' });
    expect(verifySignature(body, long, secret)).toEqual({ valid: false, reason: 'malformed' });
  });

  it('calls non-Base64 signatures malformed', () => {
    const hex = createHmac('sha256', secret).update(body).digest('hex');
    const urlSafe = good.replace(/\+/g, '-').replace(/\//g, '_');
    const cases = [
      hex,
      `sha256=${good}`,
      good.replace(/=$/, ''),
      `${good.slice(0, 10)}*${good.slice(11)}`,
      `${good.slice(0, 20)} ${good.slice(20)}`,
      'not base64 at all',
    ];
    // Only count the URL-safe form when it really differs (it does for most digests).
    if (urlSafe !== good) cases.push(urlSafe);
    for (const value of cases) {
      expect(verifySignature(body, value, secret)).toEqual({ valid: false, reason: 'malformed' });
    }
  });

  it('verifies an empty body against its own signature only', () => {
    const empty = signBody('', secret);
    expect(verifySignature('', empty, secret).valid).toBe(true);
    expect(verifySignature(new Uint8Array(0), empty, secret).valid).toBe(true);
    expect(verifySignature(' ', empty, secret).valid).toBe(false);
    expect(verifySignature('', good, secret).valid).toBe(false);
  });

  describe('rotation', () => {
    const current = 'whsec-current';
    const previous = 'whsec-previous';

    it('accepts a body signed with the current secret and says which one matched', () => {
      expect(verifySignature(body, signBody(body, current), [current, previous])).toEqual({
        valid: true,
        secretIndex: 0,
      });
    });

    it('accepts a body signed with the previous secret during rotation', () => {
      expect(verifySignature(body, signBody(body, previous), [current, previous])).toEqual({
        valid: true,
        secretIndex: 1,
      });
    });

    it('rejects a signature made with neither secret', () => {
      expect(verifySignature(body, signBody(body, 'whsec-other'), [current, previous])).toEqual({
        valid: false,
        reason: 'mismatch',
      });
    });

    it('rejects everything when the list is empty', () => {
      expect(verifySignature(body, signBody(body, current), [])).toEqual({
        valid: false,
        reason: 'mismatch',
      });
    });

    it('still reports malformed before trying any secret', () => {
      expect(verifySignature(body, 'abc', [current, previous])).toEqual({
        valid: false,
        reason: 'malformed',
      });
    });
  });
});
