import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { BIN, testDataDir } from '../helpers/spawn.js';
import { startPty } from './pty.js';

// A note about a paged list ("20 of 34 shown: --all for every one") is written once the pager has
// exited, under the page, not before it where the page would cover it or scroll it away. Read
// with the real `less` on a pseudo-terminal shorter than the list.

const ROWS = Array.from({ length: 20 }, (_, i) => ({ phoneNumber: `+1555123${String(i).padStart(4, '0')}`, status: 'Active', tenantId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' }));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  server.on('GET', '/api/v1/phone-numbers/active', json(200, { items: ROWS, page: 1, limit: 20, total: 34 }));
});
afterAll(async () => {
  await server.close();
});

describe('the note of a paged list, with less', () => {
  it('comes after the pager exits, below the page', async () => {
    const run = startPty(process.execPath, [BIN, 'number', 'list'], {
      cols: 100,
      rows: 10,
      env: {
        PATH: process.env['PATH'],
        HOME: testDataDir(),
        TERM: 'xterm',
        NO_COLOR: '1',
        SVC_CONFIG_DIR: '/nonexistent-svc-config',
        SVC_DATA_DIR: testDataDir(),
        SVC_BASE_URL: server.url,
        SVC_USERNAME: 'pty@example.com',
        SVC_PASSWORD: 'pty-pa55',
        SVC_PAGER: 'less',
        PAGER: undefined,
        LESS: undefined,
      },
    });
    try {
      // less shows the first screen and waits; nothing of the note yet.
      await run.waitFor(/\+15551230007/);
      expect(run.text()).not.toContain('of 34 shown');
      const beforeQuit = run.mark();
      run.write('q');
      await run.waitFor(/20 of 34 shown: --all for every one, --page 2 for the next/, beforeQuit);
      expect(await run.exited).toBe(0);
    } finally {
      await run.close();
    }
  }, 60_000);
});
