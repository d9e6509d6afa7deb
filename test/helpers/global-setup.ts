import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every send and every listener records into an event store under the user's data directory.
// No test may write into the developer's own: the whole run (its workers and every process they
// start with this environment) gets a temporary one, removed at the end.
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-home-data-'));
  process.env['SVC_DATA_DIR'] = join(dir, 'svc');
  process.env['XDG_DATA_HOME'] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
