import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startPty } from '../output/pty.js';
import { COMMANDS, GROUPS } from '../../src/commands/tree.js';
import { nounExamples, paragraphs, wrapProse } from '../../src/program/help-format.js';
import { widthRuleFor } from '../../src/output/width.js';
import { BIN, testDataDir } from '../helpers/spawn.js';

// The help as a person reads it: prose wrapped to the terminal (80 columns when piped), a noun's
// commands before its options and with examples, `svc help A B` for the leaf, and an unknown topic
// refused with the nearest names.

const visible = COMMANDS.filter((c) => !c.hidden);
const helpLines: string[][] = [[], ...GROUPS.map((g) => g.name.split(' ')), ...visible.map((c) => [...c.path])];

/** Lines wider than the width, except an example's one unbreakable word (a GUID, a quoted jq filter). */
function overflowing(text: string, width: number): string[] {
  return text.split('\n').filter((line) => line.length > width && !/^ {2}(\$ | {4})("(?:[^"\\]|\\.)*"|'[^']*'|\S+)( \\)?$/.test(line));
}

describe('help is wrapped to the terminal', () => {
  it.each([40, 60, 80, 120])('no line of any help is wider than a %i-column terminal', async (columns) => {
    for (const path of helpLines) {
      const result = await runCli([...path, '--help'], { tty: { stdout: true }, columns });
      expect(result.code, path.join(' ')).toBe(0);
      expect(overflowing(result.stdout, columns), `svc ${path.join(' ')} --help at ${columns}`).toEqual([]);
    }
  });

  it('is 80 columns wide when piped, whatever the terminal', async () => {
    const wide = await runCli(['send', '--help'], { tty: false, columns: 200 });
    expect(overflowing(wide.stdout, 80)).toEqual([]);
    expect(Math.max(...wide.stdout.split('\n').map((l) => l.length))).toBeGreaterThan(70);
  });

  it('fills each line before breaking it (no ragged prose), and breaks a long list after a comma', async () => {
    const rule = await widthRuleFor([]);
    for (const spec of visible) {
      for (const paragraph of paragraphs(spec.description)) {
        for (const width of [38, 58, 78]) {
          const lines = wrapProse(rule, paragraph, width);
          let at = 0;
          lines.forEach((line, i) => {
            expect(line.length).toBeLessThanOrEqual(width);
            expect(paragraph.startsWith(line, at), `${spec.path.join(' ')}: "${line}"`).toBe(true);
            at += line.length;
            const next = lines[i + 1];
            if (next === undefined) return;
            // Broken at a space (dropped) or after a comma or bar (kept): the next line's first
            // piece would not have fitted on this one.
            const space = paragraph[at] === ' ' ? 1 : 0;
            at += space;
            const piece = next.split(/(?<=[ ,|])/)[0]!.trimEnd();
            expect(line.length + space + piece.length, `${spec.path.join(' ')} at ${width}: "${line}"`).toBeGreaterThan(width);
          });
        }
      }
    }
    expect(wrapProse(rule, 'columns: number,email,description,domain,platformType and more', 20)).toEqual([
      'columns: number,',
      'email,description,',
      'domain,platformType',
      'and more',
    ]);
  });

  it('keeps a long example pasteable: continued with a backslash between shell words, never inside quotes', async () => {
    for (const spec of visible) {
      const result = await runCli([...spec.path, '--help'], { tty: { stdout: true }, columns: 60 });
      const block = result.stdout.slice(result.stdout.indexOf('\nExamples:\n') + '\nExamples:\n'.length);
      const shown = block.split(/\n(?= {2}\$ )/).map((example) => example.trim().replace(/^\$ /, '').replace(/ \\\n +/g, ' '));
      expect(shown, spec.path.join(' ')).toEqual([...spec.examples]);
    }
    const send = await runCli(['send', '--help'], { tty: { stdout: true }, columns: 60 });
    expect(send.stdout).toContain('  $ svc send --from +15551230000 --to +15557650001 \\\n      --body "Your code is 1234"\n');
  });
});

describe('noun help', () => {
  it.each(GROUPS.map((g) => [g.name] as const))('svc %s --help lists its commands first, then options, then examples', async (name) => {
    const result = await runCli([...name.split(' '), '--help']);
    expect(result.code).toBe(0);
    const text = result.stdout;
    const commands = text.indexOf('\nCommands:\n');
    const options = text.indexOf('\nOptions:\n');
    const examples = text.indexOf('\nExamples:\n');
    expect(commands).toBeGreaterThan(0);
    expect(options).toBeGreaterThan(commands);
    expect(examples).toBeGreaterThan(options);
    // The global options are the commands' (svc --help lists them), not twelve lines here.
    expect(text).not.toContain('Global options:');
    expect(text.replace(/\s+/g, ' ')).toContain('svc --help lists the global options');
    const shown = nounExamples(COMMANDS, name.split(' '));
    expect(shown.length).toBeGreaterThan(0);
    for (const example of shown) expect(text.replace(/ \\\n +/g, ' ')).toContain(`$ ${example}`);
  });

  it('lists a subcommand with its arguments, not commander\'s [options] or its own help command', async () => {
    const result = await runCli(['tenant', '--help']);
    expect(result.stdout).toMatch(/^ {2}get \[ID\] +show a tenant/m);
    expect(result.stdout).not.toContain('[options] [ID]');
    expect(result.stdout).not.toMatch(/^ {2}help /m);
  });
});

describe('svc help TOPIC', () => {
  it('shows the help of the leaf the words name, as --help does', async () => {
    const viaHelp = await runCli(['help', 'number', 'provision']);
    const viaFlag = await runCli(['number', 'provision', '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout.split('\n')[0]).toBe('Usage: svc number provision [options] [NUMBER...]');
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    const nested = await runCli(['help', 'sandbox', 'trigger', 'order-status']);
    expect(nested.code).toBe(0);
    expect(nested.stdout.split('\n')[0]).toMatch(/^Usage: svc sandbox trigger order-status /);
    const noun = await runCli(['help', 'tenant']);
    expect(noun.stdout.split('\n')[0]).toBe('Usage: svc tenant [options] [command]');
  });

  it('refuses an unknown topic (exit 2) with the nearest name, instead of printing everything', async () => {
    const unknown = await runCli(['help', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('error: unknown help topic "nope"');
    expect(unknown.stderr).toContain('svc help COMMAND takes one of: demo, auth,');
    const typo = await runCli(['help', 'tenant', 'lst']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown help topic "tenant lst"');
    expect(typo.stderr).toContain('Did you mean: svc help tenant list');
    const past = await runCli(['help', 'health', 'extra']);
    expect(past.code).toBe(2);
    expect(past.stderr).toContain('svc health has no subcommands');
    const json = await runCli(['help', 'tenat', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr).error).toMatchObject({ message: 'unknown help topic "tenat"', hint: expect.stringContaining('Did you mean: svc help tenant') });
  });

  it('a bare svc and svc help print the whole help on stdout, exit 0', async () => {
    for (const argv of [[], ['help']]) {
      const result = await runCli(argv);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout.indexOf('Commands:')).toBeLessThan(result.stdout.indexOf('Global options:'));
      expect(result.stdout).toContain('Start here:');
    }
  });
});

describe('help on a real terminal', () => {
  it('fits 40 columns: an option whose name leaves no room has its text under it', async () => {
    const session = startPty(process.execPath, [BIN, 'tenant', 'update', '--help'], { env: { PATH: process.env['PATH'], HOME: process.env['HOME'], SVC_DATA_DIR: testDataDir(), SVC_NO_PAGER: '1' }, cols: 40, rows: 200 });
    try {
      expect(await session.exited).toBe(0);
      const lines = session.text().split('\n');
      expect(lines.filter((line) => line.length > 40 && !line.startsWith('  $ ') && !line.startsWith('      '))).toEqual([]);
      const at = lines.indexOf('  --webhook-basic-auth-password-stdin');
      expect(at).toBeGreaterThan(0);
      expect(lines[at + 1]).toMatch(/^ {6}read the webhook Basic auth/);
    } finally {
      await session.close();
    }
  });
});
