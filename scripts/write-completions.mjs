// Writes completions/svc.{bash,zsh,fish} from the built command tree.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/svc.js', import.meta.url));
const out = new URL('../completions/', import.meta.url);
mkdirSync(out, { recursive: true });
for (const [shell, file] of [['bash', 'svc.bash'], ['zsh', '_svc'], ['fish', 'svc.fish']]) {
  const result = spawnSync(process.execPath, [bin, 'completion', shell], { encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(result.stderr);
    process.exit(1);
  }
  writeFileSync(new URL(file, out), result.stdout);
}
