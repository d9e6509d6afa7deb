import type { IOStreams } from './io.js';

// What every renderer needs, and all it needs: the streams, the output format and the --fields
// to keep. The Context of a command is one (it carries these); a test or a library caller can
// hand any object of this shape.

export type OutputFormat = 'table' | 'json' | 'ndjson';

export interface Output {
  readonly io: IOStreams;
  readonly format: OutputFormat;
  /** --fields: dotted paths to keep in what is printed; undefined keeps everything. */
  readonly fields?: readonly string[] | undefined;
  /** What "now" is, for times shown relative to it on a terminal; without it times are shown as they came. */
  readonly clock?: { now(): number } | undefined;
}
