import { describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV } from '../helpers/mock-api.js';
import { COMMANDS } from '../../src/commands/tree.js';
import { selectedBranch } from '../../src/program/argv-scan.js';

describe('svc', () => {
  it('prints its version', async () => {
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('shows help with the commands and the global options', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Global options:');
    for (const spec of COMMANDS.filter((c) => c.path.length === 1 && !c.hidden)) expect(result.stdout).toContain(spec.path[0]);
  });

  it.each(COMMANDS.map((c) => [c.path.join(' '), c] as const))('svc %s --help shows an example', async (_name, spec) => {
    expect(spec.examples.length).toBeGreaterThan(0);
    const result = await runCli([...spec.path, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Examples:');
    // A long example is continued on the next line with a backslash: joined, it is the example.
    expect(result.stdout.replace(/ \\\n +/g, ' ')).toContain(`$ ${spec.examples[0]}`);
  });

  it('exits 0 for `svc help`, `svc help COMMAND` and a bare `svc`, and 2 when a subcommand is missing', async () => {
    const help = await runCli(['help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: svc');
    const helpTenant = await runCli(['help', 'tenant']);
    expect(helpTenant.code).toBe(0);
    expect(helpTenant.stdout).toContain('Usage: svc tenant');
    const bare = await runCli([]);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toContain('Usage: svc');
    expect(bare.stdout).toContain('Start here:');
    expect(bare.stderr).toBe('');
    const group = await runCli(['tenant']);
    expect(group.code).toBe(2);
    expect(group.stdout).toBe('');
  });

  it('finds the command a line names, past global options and their values', () => {
    expect(selectedBranch(['tenant', 'list'])).toBe('tenant');
    expect(selectedBranch(['--json', '--profile', 'work', '-o', 'json', 'number', 'get', '+15551234567'])).toBe('number');
    expect(selectedBranch(['--timeout=5', 'order', 'watch'])).toBe('order');
    expect(selectedBranch(['help', 'send'])).toBe('send');
    expect(selectedBranch(['--help'])).toBeUndefined();
    expect(selectedBranch([])).toBeUndefined();
  });

  it('exits 2 on an unknown command or option, with a suggestion', async () => {
    const command = await runCli(['tenat', 'list']);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain("unknown command 'tenat'");
    expect(command.stderr).toContain('tenant');
    const option = await runCli(['tenant', 'list', '--jsn']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("unknown option '--jsn'");
  });

  it('accepts global options before and after the command', async () => {
    const env = { SVC_BASE_URL: 'http://example.com', SVC_USERNAME: 'u', SVC_PASSWORD: 'p' };
    for (const argv of [['--json', 'tenant', 'list'], ['tenant', 'list', '--json']]) {
      const result = await runCli(argv, { env });
      expect(result.code).toBe(2);
      expect(JSON.parse(result.stderr).error.message).toContain('plain HTTP');
    }
  });

  it('prints parse errors as JSON on stderr with --json', async () => {
    const result = await runCli(['number', 'get', '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr)).toEqual({
      error: { status: null, message: 'NUMBER (E.164 number) is missing (not asked with --json): give it after `svc number get`',
        title: null,
        errorCode: null,
        hint: expect.stringMatching(/^For example: svc number get \S+/),
      },
    });
  });

  it("keeps a command's own --timeout apart from the global one given before the command", async () => {
    const pending = { orderId: 42, status: 'Pending', phoneNumbers: [] };
    const done = { orderId: 42, status: 'Completed', completionDate: '2026-01-01T00:01:00Z', phoneNumbers: [] };
    // Before the command, --timeout is the per-request limit: the wait itself has none and
    // follows the order to its end although that takes longer than 8 s.
    const before = createMockApi();
    before.expect('GET', 'phone-numbers/orders/42', { status: 200, body: pending }, { times: 6 });
    before.expect('GET', 'phone-numbers/orders/42', { status: 200, body: done });
    const clock = fakeClock();
    const first = await runCli(['--timeout', '8', 'order', 'watch', '42', '--interval', '2', '--json'], { env: MOCK_ENV, dispatcher: before.agent, clock });
    expect(first.code).toBe(0);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThan(8000);
    before.verify();
    await before.agent.close();
    // After it, --timeout is the wait's own limit: exit 5.
    const after = createMockApi();
    after.expect('GET', 'phone-numbers/orders/42', { status: 200, body: pending }, { times: 10 });
    const second = await runCli(['order', 'watch', '42', '--interval', '2', '--timeout', '8', '--json'], { env: MOCK_ENV, dispatcher: after.agent, clock: fakeClock() });
    expect(second.code).toBe(5);
    await after.agent.close();
  });

  it('refuses a bad --timeout', async () => {
    const result = await runCli(['tenant', 'list', '--timeout', 'soon']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"soon"');
  });

  it('says which flag or variable supplies missing credentials', async () => {
    const result = await runCli(['tenant', 'list'], { env: { SVC_BASE_URL: 'https://api.example.com' } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('SVC_USERNAME');
    expect(result.stderr).toContain('svc auth login');
  });
});
