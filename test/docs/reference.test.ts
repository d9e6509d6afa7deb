import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS, PROGRAM } from '../../src/commands/tree.js';
import { runCli } from '../helpers/cli.js';
import { buildTree, synopsis, walk } from '../../scripts/docs/model.js';
import { ENVIRONMENT, INTERNAL_VARIABLES } from '../../scripts/docs/environment.js';
import { exitCodesOf } from '../../scripts/docs/exit-codes.js';
import { GENERATED_FOLDERS, generateDocs, manList } from '../../scripts/docs/generate.js';
import { markdownText } from '../../scripts/docs/markdown.js';
import { roffText } from '../../scripts/docs/roff.js';
import { shellWords, wrapExample } from '../../src/program/example-lines.js';

// The command reference (docs/reference/) and the man pages (man/) are generated from the command
// tree by `npm run docs`; these tests fail when the committed files are stale, and check that the
// man pages are roff that man(1) reads as meant, without needing man on the machine.

const root = fileURLToPath(new URL('../..', import.meta.url));
const generated = generateDocs();
const STALE = 'stale: run `npm run docs` and commit docs/reference/ and man/';

describe('the generated manual', () => {
  it(`is fresh: docs/reference/ and man/ hold exactly what the command tree gives (when this fails, ${STALE})`, () => {
    const onDisk = GENERATED_FOLDERS.flatMap((folder) => (existsSync(join(root, folder)) ? readdirSync(join(root, folder)).map((name) => `${folder}/${name}`) : []));
    expect(onDisk.sort(), STALE).toEqual([...generated.keys()].sort());
    for (const [path, text] of generated) expect(readFileSync(join(root, path), 'utf8'), `${path} is ${STALE}`).toBe(text);
  });

  it(`lists every man page in package.json's man, where npm installs them from (when this fails, ${STALE})`, () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { man?: string[]; files?: string[] };
    expect(manifest.man, STALE).toEqual(manList(generated));
    expect(manifest.files).toEqual(expect.arrayContaining(['docs/', 'man/']));
  });

  it('is the same on every run (nothing depends on the date, the machine or the order of a Map)', () => {
    expect(generateDocs()).toEqual(generated);
  });

  it('documents every command, each of its flags and examples, and never a hidden one', () => {
    const reference = [...generated].filter(([path]) => path.startsWith('docs/reference/')).map(([, text]) => text).join('\n');
    for (const spec of COMMANDS) {
      const line = ['svc', ...spec.path].join(' ');
      const page = `man/${['svc', ...spec.path].join('-')}.1`;
      if (spec.hidden) {
        expect(reference).not.toContain(`## ${line}\n`);
        expect(generated.has(page)).toBe(false);
        continue;
      }
      expect(reference).toContain(`## ${line}\n`);
      expect(generated.has(page), page).toBe(true);
      const man = generated.get(page)!;
      for (const option of spec.options ?? []) {
        if (option.hidden) continue;
        expect(reference).toContain(`\`${option.flags}\``);
        expect(man).toContain(/--[a-z0-9-]+/.exec(option.flags)![0].replace(/-/g, '\\-'));
      }
      for (const example of spec.examples) expect(reference).toContain(`\n${example}\n`);
    }
  });

  it('has a page for the program and for every group, each listing what is below it', () => {
    const svc = generated.get('man/svc.1')!;
    for (const page of ['svc-number.1', 'svc-number-loa.1', 'svc-sandbox-trigger.1']) expect(generated.has(`man/${page}`)).toBe(true);
    expect(svc).toContain('.SH COMMANDS');
    expect(svc).toContain('.SH GLOBAL OPTIONS');
    expect(generated.get('man/svc-number-loa.1')).toContain('\\fBsvc\\-number\\-loa\\-upload\\fR(1)');
    expect(generated.get('man/svc-send.1')).toContain('\\fBsvc\\-send\\-report\\fR(1)');
  });
});

/** Every file below `dir` (source, scripts), for the variables it reads. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesBelow(path) : /\.(ts|js|mjs)$/.test(name) ? [path] : [];
  });
}

describe('the environment the manual lists', () => {
  it('explains every SVC_ variable that src/ and bin/ read', () => {
    const read = new Set<string>();
    for (const file of [...filesBelow(join(root, 'src')), ...filesBelow(join(root, 'bin'))]) {
      for (const match of readFileSync(file, 'utf8').matchAll(/\bSVC_[A-Z][A-Z0-9_]*\b/g)) read.add(match[0]);
    }
    expect(read.size).toBeGreaterThan(5);
    const listed = new Set(ENVIRONMENT.flatMap((row) => row.names));
    expect([...read].filter((name) => !listed.has(name) && !INTERNAL_VARIABLES.has(name)).sort()).toEqual([]);
    const svc = generated.get('man/svc.1')!;
    for (const name of listed) expect(svc).toContain(`\\fB${name.replace(/-/g, '\\-')}\\fR`);
  });
});

describe('the manual and --help', () => {
  it('say the same of the program: its summary and where to start', async () => {
    const help = await runCli(['--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(PROGRAM.summary);
    for (const [line, what] of PROGRAM.startHere) expect(help.stdout).toMatch(new RegExp(`${line.replace(/[<>]/g, '.')} +${what}`));
  });

  it('give every command the same usage line', async () => {
    for (const node of walk(buildTree())) {
      if (node.spec === undefined) continue;
      const help = await runCli([...node.path, '--help']);
      expect(help.stdout.split('\n')[0]).toBe(`Usage: ${synopsis(node)}`);
    }
  });
});

/** Requests of man(7) and groff that the pages may use; anything else would be a typo. */
const REQUESTS = new Set(['TH', 'SH', 'SS', 'PP', 'TP', 'RS', 'RE', 'nf', 'fi', 'br', 'sp', 'ad', 'nh', '\\"']);
const SECTIONS = ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'COMMANDS', 'ARGUMENTS', 'OPTIONS', 'GLOBAL OPTIONS', 'EXAMPLES', 'EXIT STATUS', 'ENVIRONMENT', 'SEE ALSO'];

describe('the man pages', () => {
  const pages = [...generated].filter(([path]) => path.startsWith('man/'));

  it.each(pages)('%s is well-formed roff with the sections of a man page, in order', (path, text) => {
    const lines = text.split('\n');
    expect(lines.at(-1)).toBe('');
    const name = path.slice('man/'.length, -'.1'.length);
    expect(lines[1]).toBe(`.TH "${name.toUpperCase().replace(/-/g, '\\-')}" "1" "" "svc" "svc manual"`);
    const sections: string[] = [];
    let filled = true;
    for (const line of lines.slice(0, -1)) {
      if (line.startsWith('.')) {
        const request = /^\.(\\"|[a-zA-Z]+)/.exec(line)?.[1];
        expect(REQUESTS.has(request ?? ''), `${path}: unknown request in "${line}"`).toBe(true);
        if (request === 'SH') sections.push(line.slice(4).replace(/^"|"$/g, ''));
        if (request === 'nf') filled = false;
        if (request === 'fi') filled = true;
        continue;
      }
      // A line that roff would take for a request, or a control character, must not get through.
      expect(line.startsWith("'"), `${path}: "${line}"`).toBe(false);
      expect(line, path).not.toBe('');
      // ASCII only (anything else is written \[uXXXX]), and every escape is one the generator
      // means: \- \e \& \: \fB \fI \fR \[uXXXX].
      expect(/^[\x20-\x7e]*$/.test(line), `${path}: "${line}"`).toBe(true);
      const escapes = line.match(/\\(f[BIR]|[-e&:]|\[u[0-9A-F]{4,6}\])|\\./g) ?? [];
      for (const escape of escapes) expect(/^\\([-e&:]|f[BIR]|\[u[0-9A-F]{4,6}\])$/.test(escape), `${path}: "${escape}" in "${line}"`).toBe(true);
      // A font is set back to roman on the line that changed it.
      const fonts = line.match(/\\f[BIR]/g) ?? [];
      if (fonts.length > 0) expect(fonts.at(-1), `${path}: "${line}"`).toBe('\\fR');
      // An unescaped hyphen prints as a hyphen, which does not paste as a minus into a shell.
      expect(/(^|[^\\])-/.test(line), `${path}: unescaped "-" in "${line}"`).toBe(false);
    }
    expect(filled, `${path}: .nf without .fi`).toBe(true);
    expect(sections.map((s) => SECTIONS.indexOf(s))).toEqual([...sections.map((s) => SECTIONS.indexOf(s))].sort((a, b) => a - b));
    expect(sections.slice(0, 3)).toEqual(['NAME', 'SYNOPSIS', 'DESCRIPTION']);
    expect(sections.at(-1)).toBe('SEE ALSO');
    // A command's examples come with its exit status; a noun's (one of each command) without.
    const command = COMMANDS.some((c) => `svc-${c.path.join('-')}` === name);
    if (command) expect(sections).toContain('EXAMPLES');
    if (command) expect(sections).toContain('EXIT STATUS');
    else if (name !== 'svc') expect(sections).toContain('EXAMPLES');
  });

  it('name only pages that exist, in COMMANDS and SEE ALSO', () => {
    for (const [path, text] of pages) {
      for (const match of text.matchAll(/\\fB([a-z\\-]+)\\fR\(1\)/g)) {
        const target = `man/${match[1]!.replace(/\\-/g, '-')}.1`;
        expect(generated.has(target), `${path} names ${target}`).toBe(true);
      }
    }
  });

  it('give each command its examples, its exit status and the NAME line man -k reads', () => {
    const send = generated.get('man/svc-send.1')!;
    expect(send).toMatch(/^\.SH NAME\nsvc\\-send \\- send an SMS or MMS/m);
    for (const section of ['SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'EXAMPLES', 'EXIT STATUS', 'SEE ALSO']) expect(send).toContain(`.SH ${section}\n`);
    expect(send).toContain('.TP\n\\fB6\\fR\n');
  });
});

describe('help text as roff and Markdown', () => {
  it('escapes what roff would read as requests or escapes, and sets code in bold', () => {
    expect(roffText('a\\b -x `svc send` 1,2,3')).toBe('a\\eb \\-x \\fBsvc send\\fR 1,\\:2,\\:3');
    expect(roffText('.hidden')).toBe('\\&.hidden');
    expect(roffText("'quoted")).toBe("\\&'quoted");
    expect(roffText('Grüße ☀')).toBe('Gr\\[u00FC]\\[u00DF]e \\[u2600]');
  });

  it('escapes HTML and emphasis in Markdown, and leaves code spans and words with underscores alone', () => {
    expect(markdownText('--tenant <guid> SVC_TENANT `a_b <c>` _x_ 0 9 * * 1')).toBe('--tenant &lt;guid&gt; SVC_TENANT `a_b <c>` \\_x\\_ 0 9 \\* \\* 1');
    expect(markdownText('a|b', true)).toBe('a\\|b');
    expect(markdownText('a|b')).toBe('a|b');
  });

  it('wraps a long example between words, never inside quotes, and keeps a flag with its value', () => {
    const example = 'svc send --from +15551230000 --to-file customers.csv --body "Hi {{name}}, your order {{order}} has shipped" --async --journal run.jsonl';
    const lines = wrapExample(example, 68);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines.slice(0, -1)) expect(line.endsWith(' \\')).toBe(true);
    expect(lines.some((l) => l.includes('--body "Hi {{name}}, your order {{order}} has shipped"'))).toBe(true);
    // The shell reads the wrapped lines as the same words.
    const joined = lines.map((l) => l.replace(/ \\$/, '').trim()).join(' ');
    expect(shellWords(joined)).toEqual(shellWords(example));
    expect(wrapExample('svc health', 68)).toEqual(['svc health']);
    expect(shellWords(`a 'b c' "d \\" e" f\\ g`)).toEqual(['a', "'b c'", '"d \\" e"', 'f\\ g']);
  });
});

describe('exit codes of a command', () => {
  it('are the common ones and those it declares, or the whole table when it declares none', () => {
    expect(exitCodesOf({ path: ['x'], exitCodes: [1, 3] }).map((r) => r.code)).toEqual([0, 1, 2, 3, 129, 130, 143]);
    expect(exitCodesOf({ path: ['x'] }).map((r) => r.code)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 129, 130, 143]);
  });

  it('say what a code means for the command when it declares a meaning of its own', () => {
    const rows = exitCodesOf({ path: ['webhook', 'verify'], exitCodes: [[1, 'the signature does not match']] });
    expect(rows.map((r) => [r.code, r.meaning])).toEqual([
      [0, 'success'],
      [1, 'the signature does not match'],
      [2, expect.stringMatching(/^nothing was done/)],
      [129, expect.stringMatching(/^hung up/)],
      [130, expect.stringMatching(/^interrupted/)],
      [143, expect.stringMatching(/^terminated/)],
    ]);
    expect(() => exitCodesOf({ path: ['x'], exitCodes: [3, 3] })).toThrow('declares exit code 3 twice');
  });

  it('must be in the table', () => {
    expect(() => exitCodesOf({ path: ['x', 'y'], exitCodes: [42] })).toThrow('svc x y declares exit code 42');
  });
});
