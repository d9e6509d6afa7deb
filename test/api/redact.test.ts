import { describe, expect, it } from 'vitest';
import { redactJsonText } from '../../src/api/redact.js';

// The --debug trace's redactor of secret-NAMED fields (a secret the run does not know).

describe('redactJsonText', () => {
  it('hides secret-named fields of JSON, whatever escaping spelt their names', () => {
    expect(redactJsonText('{"user":"a","pass\\u0077ord":"p1","nested":{"API_KEY":"k"}}')).toBe('{"user":"a","password":"[REDACTED]","nested":{"API_KEY":"[REDACTED]"}}');
  });

  it('hides secret-named fields of a form-encoded text, the name compared decoded', () => {
    expect(redactJsonText('user=a&password=p%20w&pass%77ord=x&api%5Fkey=y&note=hi+there')).toBe('user=a&password=[REDACTED]&pass%77ord=[REDACTED]&api%5Fkey=[REDACTED]&note=hi+there');
    expect(redactJsonText('token=&flag')).toBe('token=&flag');
  });

  it('returns any other text as it is', () => {
    expect(redactJsonText('plain words = not a form')).toBe('plain words = not a form');
    expect(redactJsonText('<html>password=x</html>')).toBe('<html>password=x</html>');
  });
});
