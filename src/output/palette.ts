import { markPainted, visibleText } from './terminal.js';

// Colours for the output that is not a table (the listener's lines, the demo's transcript): a
// palette is handed to the code that formats, so that code stays free of terminal libraries.

export interface Palette {
  dim(text: string): string;
  bold(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  cyan(text: string): string;
}

const same = (text: string): string => text;
export const plainPalette: Palette = { dim: same, bold: same, green: same, yellow: same, red: same, cyan: same };

/** The listener's and the demo's colours: chalk when colour is on (loaded only then), else none. */
export async function terminalPalette(enabled: boolean): Promise<Palette> {
  if (!enabled) return plainPalette;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  // The text's own control characters made visible, chalk's sequences marked as svc's (terminal.ts).
  const style =
    (colour: (text: string) => string) =>
    (text: string): string =>
      markPainted(colour(visibleText(text)));
  return {
    dim: style((text) => chalk.dim(text)),
    bold: style((text) => chalk.bold(text)),
    green: style((text) => chalk.green(text)),
    yellow: style((text) => chalk.yellow(text)),
    red: style((text) => chalk.red(text)),
    cyan: style((text) => chalk.cyan(text)),
  };
}
