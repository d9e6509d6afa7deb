import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { controlChannel, outputBoundary, writeExact } from '../../src/output/io.js';
import { SecretRegistry } from '../../src/output/secrets.js';
import { control, markPainted, sgr, terminalText, visibleLine, visibleText, withoutControls } from '../../src/output/terminal.js';

// The terminal-safe writer: what someone else wrote cannot drive the terminal; what svc writes
// of its own (colour, the progress line) still does.

/** Every byte that lets text act on a terminal instead of being read. */
const DANGEROUS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

const HOSTILE = [
  'clear\u001b[2J\u001b[Hscreen',
  'clip\u001b]52;c;aGVsbG8=\u0007board',
  'link\u001b]8;;https://evil.example\u001b\\here\u001b]8;;\u001b\\',
  'over\rwrite',
  'back\b\b\bspace',
  'c1\u009b31mcsi \u0085nel \u009d osc',
  'bidi \u202eevil\u202c \u2066iso\u2069 \u202a\u202b\u202d',
  'del\u007f bell\u0007 nul\u0000 vt\u000b ff\u000c',
];

describe('visibleText', () => {
  it('leaves ordinary text, accents, CJK and emoji alone', () => {
    for (const text of ['Grüße €5 — 😀', '日本語のテキスト', '👨‍👩‍👧‍👦 family', 'tab\there\nnew line\r\nwindows line']) {
      expect(visibleText(text)).toBe(text);
      expect(terminalText(text)).toBe(text);
    }
  });

  it('shows every control character, C1 and bidi override by its JSON spelling', () => {
    expect(visibleText('a\u001b[2Jb')).toBe('a\\u001b[2Jb');
    expect(visibleText('a\u009bb\u202ec\u2066d\u007fe\u0000')).toBe('a\\u009bb\\u202ec\\u2066d\\u007fe\\u0000');
    expect(visibleText('over\rwrite\r\n')).toBe('over\\rwrite\r\n');
    for (const text of HOSTILE) {
      expect(visibleText(text), JSON.stringify(text)).not.toMatch(DANGEROUS);
      expect(terminalText(text), JSON.stringify(text)).not.toMatch(DANGEROUS);
    }
  });

  it('on one line, also line breaks and tabs', () => {
    expect(visibleLine('a\nb\tc\r\nd')).toBe('a\\nb\\tc\\r\\nd');
  });

  it('is the same applied twice as once', () => {
    for (const text of HOSTILE) expect(terminalText(terminalText(text))).toBe(terminalText(text));
  });

  it('keeps a JSON document the same JSON when shown', () => {
    const value = { a: HOSTILE.join(' '), b: ['\u009b', '\u202e'] };
    expect(JSON.parse(terminalText(JSON.stringify(value, null, 2)))).toEqual(value);
  });
});

describe("svc's own sequences", () => {
  it('pass the boundary as they are; the same bytes from elsewhere do not', () => {
    const ours = `${control('\r')}progress${control('\u001b[K')}`;
    expect(terminalText(ours)).toBe('\rprogress\u001b[K');
    expect(terminalText('\rprogress\u001b[K')).toBe('\\rprogress\\u001b[K');
    expect(withoutControls(ours)).toBe('progress');
  });

  it('styled text keeps its colour and loses the control characters it was given', () => {
    expect(terminalText(sgr(31, 39, 'error\u001b[2J'))).toBe('\u001b[31merror\\u001b[2J\u001b[39m');
    // Chalk's output for a text already made visible: its sequences are marked, nested ones too.
    const inner = markPainted(`\u001b[36m${visibleText('x\u009b')}\u001b[39m`);
    const outer = markPainted(`\u001b[1m${visibleText(`[${inner}]`)}\u001b[22m`);
    expect(terminalText(outer)).toBe('\u001b[1m[\u001b[36mx\\u009b\u001b[39m]\u001b[22m');
  });
});

function capture(isTTY: boolean): { stream: PassThrough & { isTTY: boolean }; text: () => string; bytes: () => Buffer } {
  const stream = Object.assign(new PassThrough(), { isTTY });
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8'), bytes: () => Buffer.concat(chunks) };
}

describe('the output boundary', () => {
  const secrets = new SecretRegistry();
  secrets.add('hidden-secret-9');

  it('makes every write terminal-safe and redacted, to a terminal or a pipe', () => {
    for (const isTTY of [true, false]) {
      const out = capture(isTTY);
      const boundary = outputBoundary(out.stream, secrets, { isTTY });
      for (const text of HOSTILE) boundary.write(`${text} hidden-secret-9\n`);
      boundary.write(Buffer.from('bytes\u001b[2J\n'));
      expect(out.text()).not.toMatch(DANGEROUS);
      expect(out.text()).not.toContain('hidden-secret-9');
      expect(out.text()).toContain('bytes\\u001b[2J');
    }
  });

  it('writes exact data byte for byte to a pipe, and terminal-safe to a terminal', () => {
    const document = `${JSON.stringify({ a: 'x\u009b\u202e\u007f', s: 'hidden-secret-9' })}\n`;
    const piped = capture(false);
    writeExact(outputBoundary(piped.stream, secrets, { isTTY: false }), document);
    expect(piped.text()).toBe(document.replace('hidden-secret-9', '[REDACTED]'));
    const binary = capture(false);
    const bytes = Buffer.from([0x9b, 0x1b, 0x5b, 0x32, 0x4a, 0xff, 0x00]);
    writeExact(outputBoundary(binary.stream, secrets, { isTTY: false }), bytes);
    expect(binary.bytes().equals(bytes)).toBe(true);
    const tty = capture(true);
    writeExact(outputBoundary(tty.stream, secrets, { isTTY: true }), document);
    expect(tty.text()).not.toMatch(DANGEROUS);
    expect(JSON.parse(tty.text())).toEqual({ a: 'x\u009b\u202e\u007f', s: '[REDACTED]' });
  });

  it('reads bytes for a terminal as UTF-8: a stray byte is never a raw 8-bit control, a character cut in two is joined', () => {
    const tty = capture(true);
    const boundary = outputBoundary(tty.stream, secrets, { isTTY: true });
    boundary.write(Buffer.from([0x61, 0x9b, 0x62, 0xe6, 0x97]));
    boundary.write(Buffer.from([0xa5, 0x0a]));
    expect(tty.bytes().includes(0x9b)).toBe(false);
    expect(tty.text()).toBe('a\ufffdb日\n');
  });

  it('gives libraries that draw a channel that is redacted but keeps their sequences', () => {
    const tty = capture(true);
    const channel = controlChannel(outputBoundary(tty.stream, secrets, { isTTY: true }));
    channel.write('\u001b[?25l\rspin hidden-secret-9\u001b[K');
    expect(tty.text()).toBe('\u001b[?25l\rspin [REDACTED]\u001b[K');
    expect((channel as unknown as { isTTY: boolean }).isTTY).toBe(true);
  });
});
