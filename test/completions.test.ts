import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionScript } from '../src/commands/completion/shared/completion-scripts.js';
import { COMMANDS } from '../src/commands/tree.js';
import { startPty, type PtySession } from './output/pty.js';

// Each script is driven in its real shell: bash through its completion variables, fish through
// `complete -C`, zsh on a pseudo-terminal (TAB, then a key that shows the line). `.ci/run`
// installs zsh and fish; a shell that is missing here fails the test, naming the package.

const files = { bash: 'svc.bash', zsh: '_svc', fish: 'svc.fish' } as const;
const completionsDir = fileURLToPath(new URL('../completions/', import.meta.url));
const bin = fileURLToPath(new URL('../bin/svc.js', import.meta.url));

let home: string;
let env: Record<string, string>;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'svc-completion-'));
  mkdirSync(join(home, 'bin'));
  mkdirSync(join(home, 'config'));
  // `svc` on PATH, as an installed one would be: the scripts run it for profile names.
  writeFileSync(join(home, 'bin', 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`);
  chmodSync(join(home, 'bin', 'svc'), 0o755);
  const profile = { baseUrl: 'https://api.example.com', username: 'u@example.com', passwordIn: 'keychain' };
  writeFileSync(join(home, 'config', 'config.json'), JSON.stringify({ activeProfile: 'alpha', profiles: { alpha: profile, beta: profile, 'staging-eu': profile } }));
  env = { PATH: `${join(home, 'bin')}:${process.env['PATH'] ?? ''}`, HOME: home, SVC_CONFIG_DIR: join(home, 'config'), TERM: 'xterm', LANG: 'C.UTF-8' };
});

afterAll(() => rmSync(home, { recursive: true, force: true }));

function requireShell(shell: string): void {
  const found = spawnSync('sh', ['-c', `command -v ${shell}`], { encoding: 'utf8' });
  if (found.status !== 0) throw new Error(`${shell} is not installed: .ci/run installs it (apt-get install ${shell})`);
}

describe('completions', () => {
  it.each(Object.entries(files))('completions/%s matches the command tree (run `npm run completions` when this fails)', (shell, file) => {
    const committed = readFileSync(join(completionsDir, file), 'utf8');
    expect(committed).toBe(completionScript(shell as keyof typeof files));
  });

  it('offers every command and its flags, and never the hidden ones', () => {
    const bash = completionScript('bash');
    for (const spec of COMMANDS) {
      if (spec.hidden) {
        expect(bash).not.toContain(`'${spec.path.join(' ')}')`);
        continue;
      }
      expect(bash).toContain(`'${spec.path.join(' ')}')`);
      for (const option of spec.options ?? []) expect(bash).toContain(/--[a-z0-9-]+/.exec(option.flags)![0]);
    }
  });
});

describe('bash completion, in bash', () => {
  const complete = (words: string[]): string[] => {
    requireShell('bash');
    const quoted = words.map((w) => `'${w}'`).join(' ');
    const probe = `source '${join(completionsDir, files.bash)}'\nCOMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = spawnSync('bash', ['--norc', '--noprofile', '-c', probe], { encoding: 'utf8', env });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return result.stdout.split('\n').filter((l) => l !== '');
  };

  it('completes commands and subcommands at every level', () => {
    expect(complete(['svc', 'ten'])).toEqual(['tenant']);
    expect(complete(['svc', 'tenant', ''])).toEqual(['list', 'get', 'create', 'update', 'use']);
    expect(complete(['svc', 'tenant', 'cr'])).toEqual(['create']);
    expect(complete(['svc', 'number', 'loa', 'u'])).toEqual(['upload']);
    // A global flag and its value before the command do not confuse the path.
    expect(complete(['svc', '--profile', 'alpha', '-o', 'json', 'number', 'lo'])).toEqual(['loa']);
  });

  it('completes flags and enumerated values of the command at hand', () => {
    expect(complete(['svc', 'number', 'provision', '--ty'])).toEqual(['--type']);
    expect(complete(['svc', 'number', 'provision', '--type', ''])).toEqual(['SMS', 'MMS', 'SMSMMS']);
    expect(complete(['svc', 'tenant', 'create', '--webhook-event-type', ''])).toEqual(['All', 'MessageReceived', 'OrderStatus']);
    expect(complete(['svc', 'tenant', 'list', '-o', 'nd'])).toEqual(['ndjson']);
    expect(complete(['svc', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
  });

  it('offers profile names from the store after --profile and for profile use/remove, never file names', () => {
    expect(complete(['svc', '--profile', ''])).toEqual(['alpha', 'beta', 'staging-eu']);
    expect(complete(['svc', 'tenant', 'list', '--profile', 'st'])).toEqual(['staging-eu']);
    expect(complete(['svc', 'profile', 'use', ''])).toEqual(['alpha', 'beta', 'staging-eu']);
    expect(complete(['svc', 'profile', 'remove', 'b'])).toEqual(['beta']);
    expect(complete(['svc', 'tenant', 'get', ''])).toEqual([]);
  });
});

describe('fish completion, in fish', () => {
  const complete = (line: string): string[] => {
    requireShell('fish');
    const result = spawnSync('fish', ['--no-config', '-c', `source '${join(completionsDir, files.fish)}'; complete -C'${line}'`], { encoding: 'utf8', env });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return result.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split('\t')[0]!);
  };

  it('completes commands, subcommands, flags and values at every level', () => {
    expect(complete('svc tenant cr')).toEqual(['create']);
    expect(complete('svc number loa u')).toEqual(['upload']);
    expect(complete('svc --profile alpha number lo')).toEqual(['loa']);
    expect(complete('svc number provision --ty')).toEqual(['--type']);
    expect(complete('svc number provision --type ').sort()).toEqual(['MMS', 'SMS', 'SMSMMS']);
    expect(complete('svc completion ').sort()).toEqual(['bash', 'fish', 'zsh']);
  });

  it('offers profile names from the store', () => {
    expect(complete('svc --profile ')).toEqual(['alpha', 'beta', 'staging-eu']);
    expect(complete('svc profile use ')).toEqual(['alpha', 'beta', 'staging-eu']);
    expect(complete('svc profile remove st')).toEqual(['staging-eu']);
  });
});

describe('zsh completion, in zsh on a terminal', () => {
  let zsh: PtySession;
  const zdotdir = (): string => join(home, 'zsh');

  beforeAll(async () => {
    requireShell('zsh');
    mkdirSync(zdotdir(), { recursive: true });
    writeFileSync(
      join(zdotdir(), '.zshrc'),
      [
        `fpath=('${completionsDir}' $fpath)`,
        'autoload -Uz compinit && compinit -u -D',
        "PS1='READY> '",
        'unsetopt beep',
        // Ctrl-X shows the line as it stands after completion.
        'show-buffer() { zle -M "BUF<$BUFFER>" }',
        'zle -N show-buffer',
        "bindkey '^X' show-buffer",
        '',
      ].join('\n'),
    );
    zsh = startPty('zsh', ['-i'], { env: { ...env, ZDOTDIR: zdotdir() }, cols: 200, rows: 50 });
    await zsh.waitFor(/READY> /);
  }, 60_000);

  afterAll(async () => {
    await zsh?.close();
  });

  /** Types the line, presses TAB, and returns the line as completion left it. */
  const completeLine = async (line: string): Promise<string> => {
    const mark = zsh.mark();
    // Ctrl-U clears what the previous probe left on the line.
    zsh.write(`\u0015${line}\t\u0018`);
    const match = await zsh.waitFor(/BUF<([^>]*)>/, mark);
    return match[1]!;
  };

  it('completes subcommands below the first level', async () => {
    expect(await completeLine('svc tenant cr')).toBe('svc tenant create ');
    expect(await completeLine('svc number loa u')).toBe('svc number loa upload ');
    expect(await completeLine('svc --profile alpha -o json number lo')).toBe('svc --profile alpha -o json number loa ');
  }, 60_000);

  it('completes flags and enumerated values, before and after positionals', async () => {
    expect(await completeLine('svc number provision --type SMSM')).toBe('svc number provision --type SMSMMS ');
    expect(await completeLine('svc tenant get --fie')).toBe('svc tenant get --fields ');
    expect(await completeLine('svc tenant get x --no-pa')).toBe('svc tenant get x --no-pager ');
    expect(await completeLine('svc completion fi')).toBe('svc completion fish ');
  }, 60_000);

  it('offers profile names from the store', async () => {
    expect(await completeLine('svc --profile st')).toBe('svc --profile staging-eu ');
    expect(await completeLine('svc profile use be')).toBe('svc profile use beta ');
    expect(await completeLine('svc profile remove al')).toBe('svc profile remove alpha ');
  }, 60_000);
});
