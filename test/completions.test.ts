import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { completionScript } from '../src/commands/completion/generate.js';
import { COMMANDS } from '../src/commands/tree.js';

const files = { bash: 'svc.bash', zsh: '_svc', fish: 'svc.fish' } as const;

describe('completions', () => {
  it.each(Object.entries(files))('completions/%s matches the command tree (run `npm run completions` when this fails)', (shell, file) => {
    const committed = readFileSync(new URL(`../completions/${file}`, import.meta.url), 'utf8');
    expect(committed).toBe(completionScript(shell as keyof typeof files));
  });

  it('offers every command and its flags', () => {
    const bash = completionScript('bash');
    for (const spec of COMMANDS) {
      expect(bash).toContain(`'${spec.path.join(' ')}')`);
      for (const option of spec.options ?? []) expect(bash).toContain(/--[a-z0-9-]+/.exec(option.flags)![0]);
    }
  });

  it('the bash script is valid bash and completes subcommands', () => {
    const script = completionScript('bash');
    const probe = `${script}\nCOMP_WORDS=(svc tenant "") COMP_CWORD=2; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = spawnSync('bash', ['-c', probe], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout.split('\n')).toEqual(expect.arrayContaining(['list', 'get', 'create', 'update']));
    const choices = spawnSync('bash', ['-c', `${script}\nCOMP_WORDS=(svc tenant create --webhook-event-type "") COMP_CWORD=4; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8' });
    expect(choices.stdout.trim().split('\n')).toEqual(['All', 'MessageReceived', 'OrderStatus']);
  });
});
