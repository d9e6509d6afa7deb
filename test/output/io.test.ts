import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createIOStreams } from '../../src/output/io.js';

// The process's standard input is built by Node when first read (a socket for a pipe, a file
// stream for a file, which loads node:fs/promises): IOStreams makes it only when a command
// needs it, so that `svc tenant list` does not pay for it at start.

describe('createIOStreams with standard input given as a function', () => {
  it('does not make standard input until a command reads it, asks whether it is a terminal, or whether a person can be prompted', () => {
    let made = 0;
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const io = createIOStreams({ stdin: () => (made++, stdin), stdout: new PassThrough(), stderr: Object.assign(new PassThrough(), { isTTY: true }), env: {} });
    expect(made).toBe(0);
    io.stdout.write('output needs no input\n');
    expect(made).toBe(0);
    expect(io.canPrompt).toBe(true);
    expect(made).toBe(1);
    expect(io.stdinIsTTY).toBe(true);
    expect(io.stdin).toBe(stdin);
    expect(made).toBe(1);
  });

  it('answers from the stream once made: not a terminal, and no prompting in CI or without a terminal on stderr', () => {
    const piped = (): PassThrough => new PassThrough();
    expect(createIOStreams({ stdin: piped, stdout: new PassThrough(), stderr: Object.assign(new PassThrough(), { isTTY: true }), env: {} }).stdinIsTTY).toBe(false);
    const tty = (): PassThrough => Object.assign(new PassThrough(), { isTTY: true });
    expect(createIOStreams({ stdin: tty, stdout: new PassThrough(), stderr: Object.assign(new PassThrough(), { isTTY: true }), env: { CI: 'true' } }).canPrompt).toBe(false);
    expect(createIOStreams({ stdin: tty, stdout: new PassThrough(), stderr: new PassThrough(), env: {} }).canPrompt).toBe(false);
  });

  it('an explicit stdinIsTTY answers without making the stream', () => {
    let made = 0;
    const io = createIOStreams({ stdin: () => (made++, new PassThrough()), stdinIsTTY: false, stdout: new PassThrough(), stderr: new PassThrough(), env: {} });
    expect(io.stdinIsTTY).toBe(false);
    expect(io.canPrompt).toBe(false);
    expect(made).toBe(0);
  });
});
