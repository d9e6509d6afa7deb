import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `npm pack` ships what `files` lists, and the tarball installs into an empty prefix and runs.

const root = fileURLToPath(new URL('..', import.meta.url));

describe('the npm package', () => {
  it('packs bin, dist, completions, docs, man pages and README only, installs into an empty prefix with its man pages, and runs', () => {
    const out = mkdtempSync(join(tmpdir(), 'svc-pack-'));
    try {
      const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as { filename: string; files: { path: string }[] }[];
      const paths = packed[0]!.files.map((f) => f.path);
      expect(paths).toContain('bin/svc.js');
      expect(paths).toContain('dist/cli.js');
      expect(paths).toContain('completions/svc.bash');
      expect(paths).toContain('docs/reference/README.md');
      expect(paths).toContain('man/svc.1');
      expect(paths).toContain('man/svc-send.1');
      expect(paths).toContain('package.json');
      expect(paths.filter((p) => /^(src|test|bench|scripts)\//.test(p) || p.endsWith('.ts'))).toEqual([]);
      const prefix = join(out, 'prefix');
      const install = spawnSync('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', join(out, packed[0]!.filename)], {
        encoding: 'utf8',
      });
      expect(install.status, install.stderr).toBe(0);
      const binDir = readdirSync(join(prefix, 'bin'));
      expect(binDir).toContain('svc');
      // `directories.man`: npm links the pages where `man svc-send` finds them.
      const manDir = readdirSync(join(prefix, 'share', 'man', 'man1'));
      expect(manDir).toContain('svc.1');
      expect(manDir).toContain('svc-send.1');
      const version = spawnSync(join(prefix, 'bin', 'svc'), ['--version'], { encoding: 'utf8' });
      expect(version.status, version.stderr).toBe(0);
      expect(version.stdout.trim()).toBe(JSON.parse(execFileSync('node', ['-p', 'JSON.stringify(require("./package.json").version)'], { cwd: root, encoding: 'utf8' })));
      const help = spawnSync(join(prefix, 'bin', 'svc'), ['tenant', 'list', '--help'], { encoding: 'utf8' });
      expect(help.status, help.stderr).toBe(0);
      expect(help.stdout).toContain('Examples:');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
