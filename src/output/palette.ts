import { plainPalette, type Palette } from '../webhooks/format.js';

/** The listener's and the demo's colours: chalk when colour is on (loaded only then), else none. */
export async function terminalPalette(enabled: boolean): Promise<Palette> {
  if (!enabled) return plainPalette;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return {
    dim: (text) => chalk.dim(text),
    bold: (text) => chalk.bold(text),
    green: (text) => chalk.green(text),
    yellow: (text) => chalk.yellow(text),
    red: (text) => chalk.red(text),
    cyan: (text) => chalk.cyan(text),
  };
}
