import type { Context } from '../../context.js';
import { ExitCode, InterruptedError } from '../../errors.js';
import { latestRecords } from '../../events/store/reader.js';
import { StoreFollower } from '../../events/store/follower.js';
import type { StoredRecord } from '../../events/store/record.js';
import { eventJson, eventLine } from './shared/event-view.js';
import { terminalPalette } from '../../output/palette.js';
import { plainPalette } from '../../webhooks/format.js';
import type { InputFor } from '../spec.js';
import type { eventsCommands } from './index.js';
import { batchedWriter } from './shared/store-options.js';
import { openReader } from './shared/event-queries.js';
import { writeExact } from '../../output/io.js';

/** How often --follow looks for new lines. */
const FOLLOW_INTERVAL_MS = 200;

export async function run(input: InputFor<typeof eventsCommands, 'events tail'>, ctx: Context): Promise<number> {
  const count = input.number('lines', '--lines', { min: 0, max: 100_000, integer: true }) ?? 10;
  const follow = input.flag('follow');
  const { dir, reader, exists } = openReader(input, ctx);
  const json = ctx.globals.output !== 'table';
  const palette = json ? plainPalette : await terminalPalette(ctx.io.colorStdout);
  const out = batchedWriter((text) => (json ? writeExact(ctx.io.stdout, text) : ctx.io.stdout.write(text)));
  const print = (record: StoredRecord): void => {
    if (record.kind !== 'event') return;
    out.write(`${json ? JSON.stringify(eventJson(record)) : eventLine(record, { palette })}\n`);
  };
  // From the end of what the newest are read from: nothing stored in between is missed or shown twice.
  const follower = follow ? new StoreFollower(dir, reader.load()) : undefined;
  if (exists) for (const record of latestRecords(reader, count)) print(record);
  out.flush();
  if (follower === undefined) return ExitCode.Ok;
  ctx.io.stderr.write(
    exists ? `Following ${dir}: new events as they are stored. Ctrl-C to stop.\n` : `No event store at ${dir} yet; waiting for a listener to create it. Ctrl-C to stop.\n`,
  );
  try {
    for (;;) {
      await ctx.clock.sleep(FOLLOW_INTERVAL_MS, ctx.signal);
      for (const record of follower.poll()) print(record);
    }
  } catch (error) {
    if (!(error instanceof InterruptedError) && !ctx.signal.aborted) throw error;
  } finally {
    out.flush();
  }
  return ExitCode.Interrupted;
}
