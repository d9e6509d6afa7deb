import { homedir } from 'node:os';
import { join } from 'node:path';

// Where the event store lives when no --store is given: the user's data directory, by the
// platform's conventions (XDG on Linux and the BSDs, Application Support on macOS, LOCALAPPDATA on
// Windows). SVC_DATA_DIR overrides it (tests, or a team that keeps its data elsewhere).

export function dataDir(env: Readonly<Record<string, string | undefined>>): string {
  const explicit = env['SVC_DATA_DIR'];
  if (explicit) return explicit;
  const home = env['HOME'] || env['USERPROFILE'] || homedir();
  if (process.platform === 'win32') return join(env['LOCALAPPDATA'] || join(home, 'AppData', 'Local'), 'svc', 'Data');
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'svc');
  return join(env['XDG_DATA_HOME'] || join(home, '.local', 'share'), 'svc');
}

export function defaultStoreDir(env: Readonly<Record<string, string | undefined>>): string {
  return join(dataDir(env), 'events');
}
