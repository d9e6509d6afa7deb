import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeText, InvalidTextError, StrictTextDecoder } from '../../src/input/text.js';

function utf16(text: string, order: 'le' | 'be', bom = true): Buffer {
  const le = Buffer.from(text, 'utf16le');
  const body = order === 'le' ? le : Buffer.from(le).swap16();
  return Buffer.concat([bom ? Buffer.from(order === 'le' ? [0xff, 0xfe] : [0xfe, 0xff]) : Buffer.alloc(0), body]);
}

function failure(run: () => unknown): InvalidTextError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidTextError) return error;
    throw error;
  }
  throw new Error('no error');
}

/** Decodes in the given chunk sizes (cycled), as a stream of file reads would. */
function decodeInChunks(bytes: Uint8Array, sizes: number[], file = 'f.txt'): string {
  const decoder = new StrictTextDecoder(file);
  let text = '';
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    text += decoder.decode(bytes.subarray(at, at + size));
    at += size;
  }
  return text + decoder.end();
}

describe('strict decoding of input files', () => {
  it('reads UTF-8 with and without a byte-order mark, and UTF-16 of either order with one', () => {
    const text = 'number,name\n+14155550100,José 🙂\n';
    expect(decodeText(Buffer.from(text), 'a.csv')).toBe(text);
    expect(decodeText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), 'a.csv')).toBe(text);
    expect(decodeText(utf16(text, 'le'), 'a.csv')).toBe(text);
    expect(decodeText(utf16(text, 'be'), 'a.csv')).toBe(text);
    expect(decodeText(Buffer.alloc(0), 'empty')).toBe('');
    expect(decodeText(Buffer.from('ab'), 'short')).toBe('ab');
  });

  it('refuses a Latin-1 byte, naming the file, its line and the byte offset', () => {
    const bytes = Buffer.concat([Buffer.from('number,name\n+14155550100,Jos'), Buffer.from([0xe9]), Buffer.from('\n')]);
    const error = failure(() => decodeText(bytes, 'people.csv'));
    expect(error.exitCode).toBe(2);
    expect(error.line).toBe(2);
    expect(error.byteOffset).toBe(28);
    expect(error.message).toBe('people.csv:2: not valid UTF-8 at byte offset 28: the byte 0xE9 is not followed by the rest of a character');
  });

  it('refuses bytes that cannot start a character, overlong forms and encoded surrogates', () => {
    expect(failure(() => decodeText(Buffer.from([0x61, 0x0a, 0x0a, 0xff]), 'x')).message).toBe('x:3: not valid UTF-8 at byte offset 3: the byte 0xFF cannot start a character');
    expect(failure(() => decodeText(Buffer.from([0x61, 0xc0, 0xaf]), 'x')).byteOffset).toBe(1);
    expect(failure(() => decodeText(Buffer.from([0x61, 0x62, 0xed, 0xa0, 0x80]), 'x')).byteOffset).toBe(2);
    expect(failure(() => decodeText(Buffer.from([0x80]), 'x')).byteOffset).toBe(0);
  });

  it('refuses a file that ends in the middle of a character', () => {
    const error = failure(() => decodeText(Buffer.from([0x61, 0x0a, 0xe2, 0x82]), 'cut.txt'));
    expect(error.message).toBe('cut.txt:2: not valid UTF-8 at byte offset 2: the file ends in the middle of a character');
  });

  it('refuses a lone surrogate in UTF-16, in either order, and an odd byte at the end', () => {
    const le = Buffer.concat([utf16('a\nb', 'le'), Buffer.from([0x00, 0xd8]), utf16('c', 'le', false)]);
    const error = failure(() => decodeText(le, 'u16.txt'));
    expect(error.message).toBe('u16.txt:2: not valid UTF-16LE at byte offset 8: a high surrogate (0xD800) without its low half');
    const be = Buffer.concat([utf16('a', 'be'), Buffer.from([0xdc, 0x00])]);
    expect(failure(() => decodeText(be, 'u16.txt')).message).toBe('u16.txt:1: not valid UTF-16BE at byte offset 4: a low surrogate (0xDC00) without its high half');
    const odd = Buffer.concat([utf16('ab', 'le'), Buffer.from([0x41])]);
    expect(failure(() => decodeText(odd, 'u16.txt')).message).toBe('u16.txt:1: not valid UTF-16LE at byte offset 6: the file ends in the middle of a character');
    const trailingHigh = Buffer.concat([utf16('ab', 'le'), Buffer.from([0x3d, 0xd8])]);
    expect(failure(() => decodeText(trailingHigh, 'u16.txt')).byteOffset).toBe(6);
  });

  it('decodes the same text, and finds the same fault, however the input is cut into chunks', () => {
    const encodings = fc.constantFrom('utf-8', 'utf-8-bom', 'utf-16le', 'utf-16be');
    const sizes = fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), encodings, sizes, (text, encoding, chunkSizes) => {
        const bytes =
          encoding === 'utf-8' ? Buffer.from(text) : encoding === 'utf-8-bom' ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]) : utf16(text, encoding === 'utf-16le' ? 'le' : 'be');
        // A string with a lone surrogate is encoded by Node with U+FFFD in UTF-8, and kept as is in UTF-16.
        let whole: string | InvalidTextError;
        try {
          whole = decodeText(bytes, 'f');
        } catch (error) {
          whole = error as InvalidTextError;
        }
        let chunked: string | InvalidTextError;
        try {
          chunked = decodeInChunks(bytes, chunkSizes, 'f');
        } catch (error) {
          chunked = error as InvalidTextError;
        }
        if (typeof whole === 'string') {
          expect(chunked).toBe(whole);
          expect(whole).toBe(encoding.startsWith('utf-8') ? Buffer.from(text).toString('utf8') : text);
        } else {
          expect(chunked).toBeInstanceOf(InvalidTextError);
          expect((chunked as InvalidTextError).message).toBe(whole.message);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('finds the first bad byte in random bytes at the same place as a byte-by-byte reference', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 4 }), (raw, chunkSizes) => {
        const bytes = Buffer.concat([Buffer.from('x\n'), raw]);
        const valid = (() => {
          try {
            new TextDecoder('utf-8', { fatal: true }).decode(bytes);
            return true;
          } catch {
            return false;
          }
        })();
        let error: InvalidTextError | undefined;
        try {
          decodeInChunks(bytes, chunkSizes);
        } catch (caught) {
          error = caught as InvalidTextError;
        }
        expect(error === undefined).toBe(valid);
        if (error === undefined) return;
        // Reference: the longest prefix that still decodes (as a stream) ends where the fault's character starts.
        let good = 0;
        const stream = new TextDecoder('utf-8', { fatal: true });
        for (let i = 0; i < bytes.length; i++) {
          try {
            stream.decode(bytes.subarray(i, i + 1), { stream: true });
            good = i + 1;
          } catch {
            break;
          }
        }
        expect(error.byteOffset).toBeLessThanOrEqual(good);
        expect(bytes.subarray(0, error.byteOffset).toString('utf8')).not.toContain('\uFFFD');
        expect(error.line).toBe(bytes.subarray(0, error.byteOffset).toString('latin1').split('\n').length);
      }),
      { numRuns: 3000 },
    );
  });
});
