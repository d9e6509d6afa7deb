import { describe, expect, it } from 'vitest';
import { linkExpiry } from '../../src/api/media-link-expiry.js';

// The expiry of a service-hosted media link, read from the signed token in its query.

describe('linkExpiry', () => {
  it('reads seconds since the epoch (the sandbox, CDN signed links)', () => {
    expect(linkExpiry('https://media.example/m/1/a.png?expires=4102444800&sig=abc')).toBe('2100-01-01T00:00:00.000Z');
    expect(linkExpiry('https://cdn.example/a.png?Expires=4102444800&Signature=x&Key-Pair-Id=K')).toBe('2100-01-01T00:00:00.000Z');
  });

  it('reads an ISO 8601 date (shared access signatures)', () => {
    expect(linkExpiry('https://store.example/c/a.png?sv=2024-01-01&se=2125-01-01T00%3A00%3A00Z&sp=r&sig=x')).toBe('2125-01-01T00:00:00.000Z');
  });

  it('adds a lifetime to a start (X-Amz-Date and X-Amz-Expires, X-Goog-* alike)', () => {
    expect(linkExpiry('https://b.s3.example/a.png?X-Amz-Date=20260101T000000Z&X-Amz-Expires=604800&X-Amz-Signature=x')).toBe('2026-01-08T00:00:00.000Z');
    expect(linkExpiry('https://storage.example/b/a.png?X-Goog-Date=20260101T120000Z&X-Goog-Expires=3600')).toBe('2026-01-01T13:00:00.000Z');
  });

  it('says nothing of a link whose token carries no readable expiry', () => {
    for (const link of [
      'https://media.test/a?sig=x',
      'https://media.test/a.png',
      'not a link',
      'https://media.test/a?expires=soon',
      'https://media.test/a?expires=1700000000000', // milliseconds: not what the word means here
      'https://media.test/a?X-Amz-Date=20260101T000000Z',
      'https://media.test/a?X-Amz-Date=2026-01-01&X-Amz-Expires=60',
    ]) {
      expect(linkExpiry(link), link).toBeUndefined();
    }
  });
});
