import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV } from '../helpers/mock-api.js';
import { fileDir } from './number/helpers.js';

// The commands that read a JSON --file name the same line (and column) for the same bad line:
// they all ask the one scan of src/input/json.ts.

const files = fileDir('svc-json-positions-');
afterAll(() => files.cleanup());

/** A path as a regular expression matches it. */
const literally = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const commands: [string, (path: string) => string[]][] = [
  ['number update', (path) => ['number', 'update', '+15551230001', '--file', path]],
  ['tenant create', (path) => ['tenant', 'create', '--file', path]],
  ['number provision', (path) => ['number', 'provision', '--file', path, '--type', 'SMS', '--class', 'P2P', '--tenant', TENANT]],
];

/** Runs a command that must be refused before any request (no request is expected). */
async function refused(args: string[]): Promise<string> {
  const api = createMockApi();
  const result = await runCli(args, { env: MOCK_ENV, dispatcher: api.agent });
  expect(api.seen).toEqual([]);
  expect(result.code).toBe(2);
  return result.stderr;
}

describe('one JSON position for the same bad line', () => {
  it('a syntax error on line 3 is file:3:column in every command', async () => {
    const broken = files.write('broken.json', '{\n  "description": "x",\n  "externalId": ,\n  "phoneNumbers": []\n}\n');
    const places = new Set<string>();
    for (const [name, args] of commands) {
      const stderr = await refused(args(broken));
      const match = new RegExp(`${literally(broken)}:(\\d+:\\d+): invalid JSON`).exec(stderr);
      expect(match, `${name}: ${stderr}`).not.toBeNull();
      places.add(match![1]!);
    }
    expect([...places]).toEqual(['3:17']);
  });

  it('an unknown key on line 3 is file:3 in every command', async () => {
    // Line 2 holds a key each command knows; line 3 the same misspelt one.
    const known: Record<string, string> = { 'number update': '"description": "x"', 'tenant create': '"domain": "x.example"', 'number provision': '"phoneNumbers": [{"number": "+15551230001"}]' };
    for (const [name, args] of commands) {
      const misspelt = files.write(`misspelt-${name.replace(' ', '-')}.json`, `{\n  ${known[name]},\n  "extrnalId": "y"\n}\n`);
      const stderr = await refused(args(misspelt));
      expect(stderr, name).toMatch(new RegExp(`${literally(misspelt)}:3: unknown (key|field) "extrnalId"`));
    }
  });
});
