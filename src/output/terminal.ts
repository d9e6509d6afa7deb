// Terminal safety: text that someone else wrote (the service, a webhook sender, a file) must not
// be able to drive the terminal it is shown on. ESC[2J clears the screen, OSC 52 writes the
// clipboard, OSC 8 plants a link, CR and backspace overwrite what was printed, a C1 control
// (U+009B) acts as CSI, and a bidirectional override reorders what is read. Every such character
// is shown as a visible escape instead: `\u001b`, `\u009b`, `\u202e`, `\r` (the same spellings
// JSON uses, so that a JSON document shown on a terminal still reads as the same JSON).
//
// The streams of a run (src/output/io.ts) pass every write through `terminalText`, beside the
// redactor, so a command cannot forget it. svc's own escape sequences (colour, the progress
// line's carriage return, cursor movement) are written through `control`, which marks them with
// a token made fresh for each run; a server cannot know it, so it cannot pass a sequence off as
// ours. Spinners and prompts, whose libraries write their own sequences, get the stream's
// control channel and are handed text already made visible (spinner.ts, prompter.ts).

/** The characters made visible: C0 but tab and line feed, DEL, C1, and the bidi overrides and isolates. */
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;
const CONTROL_CHARACTERS_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** What may need work: a control character, or the first unit of a mark (a plane-16 private-use character). */
const NEEDS_WORK = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\udbc0-\udbff]/;

/** The visible spelling of one control character. */
export function visibleControl(character: string): string {
  switch (character) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    default:
      return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
  }
}

let runMark: string | undefined;

/**
 * Four private-use characters from plane 16 chosen at random for this run (64 bits): what brackets
 * a sequence svc itself writes. Never written out: the boundary removes it.
 */
function mark(): string {
  if (runMark === undefined) {
    const random = new Uint16Array(4);
    globalThis.crypto.getRandomValues(random);
    runMark = String.fromCodePoint(...[...random].map((n) => 0x100000 + n));
  }
  return runMark;
}

/** An escape sequence (or a carriage return) of svc's own, to be written to the terminal as it is. */
export function control(sequence: string): string {
  const m = mark();
  return `${m}${sequence}${m}`;
}

/** Applies `visible` to what lies outside svc's own marked sequences, keeping those as they are. */
function outsideMarks(text: string, visible: (piece: string) => string): string {
  if (runMark === undefined || !text.includes(runMark)) return visible(text);
  const pieces = text.split(runMark);
  let out = '';
  for (let i = 0; i < pieces.length; i++) out += i % 2 === 1 ? `${runMark}${pieces[i]!}${runMark}` : visible(pieces[i]!);
  return out;
}

function visibleMultiLine(piece: string): string {
  return CONTROL_CHARACTER.test(piece) ? piece.replace(CONTROL_CHARACTERS, visibleControl) : piece;
}

function visibleOneLine(piece: string): string {
  return piece.replace(CONTROL_CHARACTERS_ONE_LINE, visibleControl);
}

/**
 * Text with its control characters made visible. Line feeds and tabs stay (and a carriage return
 * right before a line feed, which cannot overwrite anything) unless `oneLine`, for a table cell,
 * a field of a one-line report, a chat line: there they are `\n`, `\t` and `\r` too. svc's own
 * marked sequences in the text are kept, marked.
 */
export function visibleText(text: string, options: { oneLine?: boolean } = {}): string {
  if (options.oneLine === true) return outsideMarks(text, visibleOneLine);
  if (!NEEDS_WORK.test(text)) return text;
  return outsideMarks(text, visibleMultiLine);
}

/** One line of text, its line breaks and tabs made visible too (`\n`, `\t`). */
export function visibleLine(text: string): string {
  return visibleText(text, { oneLine: true });
}

/**
 * What reaches the terminal: control characters made visible, svc's own sequences unmarked and
 * written as they are. Applying it twice gives the same text as once.
 */
export function terminalText(text: string): string {
  if (!NEEDS_WORK.test(text)) return text;
  if (runMark === undefined || !text.includes(runMark)) return visibleMultiLine(text);
  const pieces = text.split(runMark);
  let out = '';
  for (let i = 0; i < pieces.length; i++) out += i % 2 === 1 ? pieces[i]! : visibleMultiLine(pieces[i]!);
  return out;
}

/** The text without svc's own sequences: what a person sees of it, for measuring its width. */
export function withoutControls(text: string): string {
  if (runMark === undefined || !text.includes(runMark)) return text;
  return text
    .split(runMark)
    .filter((_, i) => i % 2 === 0)
    .join('');
}

/**
 * Colour from chalk made safe: `paint(visible)` is chalk's output for a text whose control
 * characters were already made visible, so every ESC in it is chalk's; those are marked as ours.
 */
export function markPainted(painted: string): string {
  return outsideMarks(painted, (piece) => piece.replace(/\u001b\[[0-9;]*m/g, (sequence) => control(sequence)));
}

/** Styled text: `open` and `close` are SGR sequences; the text's own control characters made visible. */
export function sgr(open: number, close: number, text: string): string {
  return `${control(`\u001b[${open}m`)}${visibleText(text)}${control(`\u001b[${close}m`)}`;
}
