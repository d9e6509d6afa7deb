import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../src/config/settings.js';
import { CommandContext } from '../../src/context.js';
import { createIOStreams } from '../../src/output/io.js';
import { startSpinner } from '../../src/output/spinner.js';

/** A stream that looks like a terminal with cursor methods, reporting the given width. */
function terminal(columns: number): PassThrough & { isTTY: boolean; columns: number; text: string } {
  const stream = Object.assign(new PassThrough(), {
    isTTY: true,
    columns,
    text: '',
    cursorTo: () => true,
    moveCursor: () => true,
    clearLine: () => true,
  });
  stream.on('data', (chunk: Buffer) => (stream.text += chunk.toString()));
  return stream;
}

function contextFor(stderr: ReturnType<typeof terminal>): CommandContext {
  const io = createIOStreams({ stdin: new PassThrough(), stdout: new PassThrough(), stderr, env: { NO_COLOR: '1' } });
  return new CommandContext({ io, env: {} }, { output: 'table', profile: undefined, baseUrl: undefined, debug: false, timeoutMs: 30_000 }, resolveSettings);
}

describe('startSpinner', () => {
  it.each([0, 40])('redraws and stops on a terminal that reports a width of %i', async (columns) => {
    const stderr = terminal(columns);
    const ctx = contextFor(stderr);
    const spinner = await startSpinner(ctx, 'Order 1: reading');
    spinner.text = `Order 1: Processing ${'+15551230000 Pending '.repeat(10)}`;
    spinner.render();
    spinner.render();
    spinner.succeed('Order 1 Completed');
    expect(stderr.text).toContain('Order 1 Completed');
    await ctx.close();
  });

  it('is stopped when the command ends', async () => {
    const stderr = terminal(80);
    const ctx = contextFor(stderr);
    const spinner = await startSpinner(ctx, 'waiting');
    expect(spinner.isSpinning).toBe(true);
    await ctx.close();
    expect(spinner.isSpinning).toBe(false);
  });
});
