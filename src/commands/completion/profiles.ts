import type { InputFor } from '../spec.js';
import type { completionCommands } from './index.js';
import type { Context } from '../../context.js';
import { configDir, readStore } from '../../config/store.js';

// The profile names for the completion scripts: the store on disk, nothing else (no network, no
// keychain). A store that cannot be read completes nothing rather than printing an error into
// the user's command line.

export async function run(_input: InputFor<typeof completionCommands, '__profiles'>, ctx: Context): Promise<number> {
  let names: string[] = [];
  try {
    names = Object.keys(readStore(configDir(ctx.env)).profiles ?? {});
  } catch {
    names = [];
  }
  if (names.length > 0) ctx.io.stdout.write(`${names.join('\n')}\n`);
  return 0;
}
