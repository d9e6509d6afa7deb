import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeClock, runCli, scriptedPrompter } from '../../helpers/cli.js';
import { MOCK_ENV } from '../../helpers/mock-api.js';
import { startTestServer } from '../../helpers/http-server.js';
import { InterruptedError } from '../../../src/errors.js';
import { accepted, dropResultsFor, journalRecords, mockSends, numbers, PNG_BYTES, testDir, type SendMock } from './helpers.js';

const FROM = '+15551230000';
const A = '+15557650001';
const B = '+15557650002';
const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

let mock: SendMock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});
const dir = testDir;
const run = (argv: string[], options: Parameters<typeof runCli>[1] = {}) =>
  runCli(argv, { clock: fakeClock(), ...options, env: { ...MOCK_ENV, ...options.env }, ...(mock ? { dispatcher: mock.agent } : {}) });

describe('svc send --to', () => {
  it('puts every --to in one request and prints one element per request', async () => {
    mock = mockSends(() => ({ status: 200, body: { messageId: 'm1', status: 'sent', extra: 1, messages: [{ messageId: 'm1', to: A }, { messageId: 'm2', to: B }] } }));
    const result = await run(['send', '--from', FROM, '--to', A, B, '--body', 'Hello', '--json']);
    expect(result.code).toBe(0);
    expect(mock.sends).toHaveLength(1);
    expect(mock.sends[0]!.query).toBe('isAsync=false');
    expect(mock.sends[0]!.body).toEqual({ from: FROM, to: [A, B], body: 'Hello' });
    const out = JSON.parse(result.stdout);
    expect(out).toEqual([{ to: [A, B], messageId: 'm1', status: 'sent', extra: 1, messages: [{ messageId: 'm1', to: A }, { messageId: 'm2', to: B }] }]);
  });

  it('accepts repeated and comma-separated --to, sends a repeat once with a warning, and queues with --async', async () => {
    mock = mockSends(accepted);
    const result = await run(['send', '--from', FROM, '--to', `${A},${B}`, '--to', A, '--body', 'x', '--async', '--json']);
    expect(result.code).toBe(0);
    expect(mock.sends[0]!.query).toBe('isAsync=true');
    expect(mock.sends[0]!.body.to).toEqual([A, B]);
    expect(result.stderr).toContain(`${A} is given twice`);
  });

  it('takes the body from standard input or a file, less one trailing newline', async () => {
    mock = mockSends(accepted);
    expect((await run(['send', '--from', FROM, '--to', A, '--json'], { stdin: 'from stdin\n' })).code).toBe(0);
    const d = dir();
    const file = d.file('body.txt', '\uFEFFline one\nline two\n');
    expect((await run(['send', '--from', FROM, '--to', A, '--body-file', file, '--json'])).code).toBe(0);
    expect(mock.sends.map((s) => s.body.body)).toEqual(['from stdin', 'line one\nline two']);
  });

  it('says what it waits for when standard input gives no body for a while', async () => {
    mock = mockSends(accepted);
    // The fake clock's sleeps end at once: "a while" has passed before the body arrives.
    const slow = await run(['send', '--from', FROM, '--to', A, '--json'], { stdin: 'late body\n' });
    expect(slow.code).toBe(0);
    expect(slow.stderr).toContain('waiting for the message body on standard input');
    // With the real clock, a body that arrives at once brings no such line.
    const quick = await runCli(['send', '--from', FROM, '--to', A, '--json'], { stdin: 'quick body\n', env: MOCK_ENV, dispatcher: mock.agent });
    expect(quick.code).toBe(0);
    expect(quick.stderr).not.toContain('waiting for');
    expect(mock.sends.map((x) => x.body.body)).toEqual(['late body', 'quick body']);
  });

  it('prints the answer as a key/value view on a terminal', async () => {
    mock = mockSends(accepted);
    const result = await run(['send', '--from', FROM, '--to', A, '--body', 'x', '--yes'], { tty: { stdout: true }, env: { NO_COLOR: '1' } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/messageId\s+msg-0/);
    expect(result.stdout).toMatch(/to\s+\+15557650001/);
  });

  it('on a terminal leaves out the fields the service left empty, tells times relative to now, and says what to run next', async () => {
    mock = mockSends(() => ({ status: 202, body: { messageId: 'm1', status: 'queued', queuedAt: '2026-01-01T00:00:00Z', errorCode: null, errorMessage: '', mediaUrls: [] } }));
    const clock = fakeClock(Date.parse('2026-01-01T00:00:12Z'));
    const result = await run(['send', '--from', FROM, '--to', A, '--body', 'x', '--profile', 'work'], { tty: true, clock, env: { NO_COLOR: '1' } });
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n').map((line) => line.trimEnd())).toEqual(['Sent', `to         ${A}`, 'messageId  m1', 'status     queued', 'queuedAt   12 s ago']);
    expect(result.stderr).toContain('Follow it: svc message watch m1 --profile work\n');
  });

  it('several --to: one row per recipient on a terminal and piped, never the answer flattened by index', async () => {
    const answer = {
      messageId: 'm1',
      status: 'queued',
      segmentCount: 1,
      errorCode: null,
      messages: [
        { messageId: 'm1', to: A, status: 'queued' },
        { messageId: 'm2', to: B, status: 'failed', errorCode: 'E1', errorMessage: 'unreachable' },
      ],
    };
    mock = mockSends(() => ({ status: 202, body: answer }));
    const tty = await run(['send', '--from', FROM, '--to', A, B, '--body', 'x', '--yes'], { tty: true, env: { NO_COLOR: '1' } });
    // One of the two failed: a partial failure.
    expect(tty.code).toBe(6);
    expect(tty.stdout).not.toContain('messages[');
    expect(tty.stdout).not.toContain('errorCode');
    expect(tty.stdout).toMatch(/^Sent to 2 recipients\nsegmentCount +1\n\nTO +MESSAGE ID +STATUS +DETAIL\n/);
    expect(tty.stdout).toMatch(new RegExp(`^\\${A} +m1 +queued$`, 'm'));
    expect(tty.stdout).toMatch(new RegExp(`^\\${B} +m2 +failed +E1: unreachable$`, 'm'));
    expect(tty.stderr).toContain('Follow one (ids above): svc message watch m1\n');
    // Too narrow for the table: a block per recipient, its id never left out.
    const narrow = await run(['send', '--from', FROM, '--to', A, B, '--body', 'x', '--yes'], { tty: true, columns: 20, env: { NO_COLOR: '1' } });
    expect(narrow.stdout).toContain(`\n${A}  queued\n  m1\n${B}  failed\n  m2\n  E1: unreachable\n`);
    const piped = await run(['send', '--from', FROM, '--to', A, B, '--body', 'x']);
    expect(piped.code).toBe(6);
    expect(piped.stdout).toBe(`${A}\taccepted\tm1\tqueued\n${B}\tfailed\tm2\tfailed\n`);
    // Piped, stderr is no terminal: no hint that a script would have to skip.
    expect(piped.stderr).not.toContain('Follow');
  });

  it('exits with the error\'s own code when the only request fails, the element still printed', async () => {
    mock = mockSends(() => ({ status: 400, body: { message: 'from must be an active number', title: 'Bad Request', errorCode: 'VALIDATION_ERROR' } }));
    const result = await run(['send', '--from', FROM, '--to', A, '--body', 'x', '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual([
      { to: [A], error: { status: 400, message: expect.stringContaining('from must be an active number'), title: 'Bad Request', errorCode: 'VALIDATION_ERROR' } },
    ]);
    expect(JSON.parse(result.stderr).error.errorCode).toBe('VALIDATION_ERROR');
  });

  it('exits 3 when the credentials are refused, and never retries the POST', async () => {
    mock = mockSends(() => ({ status: 401, body: { message: 'Invalid credentials', title: 'Unauthorized', errorCode: 'INVALID_CREDENTIALS' } }));
    const result = await run(['send', '--from', FROM, '--to', A, '--body', 'x']);
    expect(result.code).toBe(3);
    expect(mock.sends).toHaveLength(1);
  });

  it('does not retry a POST answered 503', async () => {
    mock = mockSends(() => ({ status: 503, body: { message: 'busy' } }));
    const result = await run(['send', '--from', FROM, '--to', A, '--body', 'x']);
    expect(result.code).toBe(1);
    expect(mock.sends).toHaveLength(1);
  });
});

describe('svc send: checks before anything is sent (exit 2)', () => {
  const refused = async (argv: string[], text: string | RegExp, options: Parameters<typeof runCli>[1] = {}) => {
    mock = mockSends(accepted);
    const result = await run(argv, options);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(text);
    expect(mock.sends).toHaveLength(0);
    expect(mock.others).toHaveLength(0);
  };

  it.each([
    [['--from', '15551230000', '--to', A, '--body', 'x'], /--from "15551230000" is not an E\.164/],
    [['--to', A, '--body', 'x'], /--from is needed/],
    [['--from', FROM, '--to', A, '--to', '+0123', '--body', 'x'], /--to "\+0123" is not an E\.164/],
    [['--from', FROM, '--body', 'x'], /Recipients are needed/],
    [['--from', FROM, '--to', A], /needs a body or media/],
    [['--from', FROM, '--to', A, '--body', 'x', '--body-file', 'b.txt'], /not both/],
    [['--from', FROM, '--to', A, '--body', 'x', '--media', 'http://example.com/a.png'], /https:\/\/ links only, not "http:\/\/example\.com\/a\.png"/],
    [['--from', FROM, '--to', A, '--body', 'x', ...Array.from({ length: 11 }, (_, i) => ['--media', `https://e.com/${i}.png`]).flat()], /at most 10 media.*not 11/],
    [['--from', FROM, '--to', A, '--body', 'x', '--resume'], /--resume needs --journal/],
    [['--from', FROM, '--to', A, '--body', 'x', '--concurrency', '0'], /--concurrency must be a whole number from 1 to 256/],
    [['--from', FROM, '--to', A, '--body-file', '/nonexistent/body.txt'], /Cannot read --body-file \/nonexistent\/body\.txt: no such file/],
    [['--from', FROM, '--to', A, '--body-file', '/dev/zero'], /Cannot read --body-file \/dev\/zero: it is a device, not a file/],
    [['--from', FROM, '--to', A, '--body-file', '/'], /Cannot read --body-file \/: it is a directory, not a file/],
    [['--from', FROM, '--to-file', '/dev/zero', '--body', 'x'], /Cannot read --to-file \/dev\/zero: it is a device, not a file/],
    [['--from', FROM, '--to-file', '/', '--body', 'x'], /Cannot read --to-file \/: it is a directory, not a file/],
    [['--from', FROM, '--to', A, '--body', 'x', '--media', 'https://e.com/a.png\nX-Injected: 1'], /--media "https:\/\/e\.com\/a\.png\\nX-Injected: 1": a link may not hold white space, line breaks or control characters/],
    [['--from', FROM, '--to', A, '--body', 'x', '--media', 'https://e.com/a b.png'], /--media "https:\/\/e\.com\/a b\.png": a link may not hold/],
    [['--from', FROM, '--to', A, '--body', 'x', '--media', 'https://e.com/a\u0007.png'], /--media "https:\/\/e\.com\/a\\u0007\.png"/],
    [['--from', FROM, '--to', A, '--body', 'x', '--media', 'https://e.com/a\t.png'], /a link may not hold/],
    [['--from', FROM, '--to', A, '--body', 'x', '--unknown', 'skip'], /--unknown goes with --resume/],
  ])('refuses %j', async (args, text) => {
    await refused(['send', ...args], text);
  });

  it('refuses a body file that is not UTF-8, naming the line', async () => {
    const file = dir().file('body.txt', Buffer.concat([Buffer.from('ok\nok\nbad '), Buffer.from([0xff, 0xfe]), Buffer.from('\n')]));
    await refused(['send', '--from', FROM, '--to', A, '--body-file', file], new RegExp(`${file}:3: not valid UTF-8`));
  });

  describe('media files', () => {
    it('refuses a file whose content is not what its name says', async () => {
      const file = dir().file('photo.png', 'just text');
      await refused(['send', '--from', FROM, '--to', A, '--media-file', file, '--tenant', TENANT], /photo\.png: the content is not image\/png/);
    });
    it('refuses a file whose content is another format', async () => {
      const file = dir().file('photo.jpg', PNG_BYTES);
      await refused(['send', '--from', FROM, '--to', A, '--media-file', file, '--tenant', TENANT], /photo\.jpg: the name says image\/jpeg but the content is image\/png/);
    });
    it('names the MIME type of an unsupported file', async () => {
      const file = dir().file('archive.zip', Buffer.from('PK\u0003\u0004rest'));
      await refused(['send', '--from', FROM, '--to', A, '--media-file', file, '--tenant', TENANT], /archive\.zip: Unsupported media type: application\/zip/);
    });
    it('refuses a file over 5 MB with the document\'s text', async () => {
      const file = dir().file('big.png', Buffer.concat([PNG_BYTES, Buffer.alloc(5 * 1024 * 1024)]));
      await refused(['send', '--from', FROM, '--to', A, '--media-file', file, '--tenant', TENANT], /big\.png: The file exceeds the maximum size of 5MB/);
    });
    it('refuses files over 5 MB together, naming them', async () => {
      const d = dir();
      const one = d.file('one.png', Buffer.concat([PNG_BYTES, Buffer.alloc(3 * 1024 * 1024)]));
      const two = d.file('two.png', Buffer.concat([PNG_BYTES, Buffer.alloc(3 * 1024 * 1024)]));
      await refused(['send', '--from', FROM, '--to', A, '--media-file', one, '--media-file', two, '--tenant', TENANT], /together.*maximum size of 5MB.*one\.png, .*two\.png/);
    });
    it('needs a tenant to upload', async () => {
      const file = dir().file('photo.png', PNG_BYTES);
      await refused(['send', '--from', FROM, '--to', A, '--media-file', file], /tenant of the --media-file upload is missing: give --tenant GUID or set SVC_TENANT[\s\S]*svc tenant use GUID/);
    });
    it('counts --media and --media-file together against the limit of 10', async () => {
      const file = dir().file('photo.png', PNG_BYTES);
      const links = Array.from({ length: 10 }, (_, i) => ['--media', `https://e.com/${i}.png`]).flat();
      await refused(['send', '--from', FROM, '--to', A, ...links, '--media-file', file, '--tenant', TENANT], /at most 10 media/);
    });
  });

  describe('recipients files', () => {
    it('names the file and line of a bad number, and counts the problems', async () => {
      const file = dir().file('to.csv', `phone,name\n${A},Ann\n12345,Bob\n+1,Cy\n`);
      await refused(['send', '--from', FROM, '--to-file', file, '--body', 'Hi {{name}}'], new RegExp(`${file}:3: "12345" is not an E\\.164 number \\(2 problems`));
    });
    it('refuses an unknown placeholder, listing the columns', async () => {
      const file = dir().file('to.csv', `phone,name\n${A},Ann\n`);
      await refused(['send', '--from', FROM, '--to-file', file, '--body', 'Hi {{first}}'], /unknown placeholder \{\{first\}\}.*columns are: phone, name/);
    });
    it('refuses a missing file and an empty one', async () => {
      await refused(['send', '--from', FROM, '--to-file', '/nonexistent/to.txt', '--body', 'x'], /\/nonexistent\/to\.txt: no such file/);
      const empty = dir().file('empty.txt', '\n\n');
      await refused(['send', '--from', FROM, '--to-file', empty, '--body', 'x'], /no recipients/);
    });
    it('refuses --to with --to-file', async () => {
      const file = dir().file('to.txt', `${A}\n`);
      await refused(['send', '--from', FROM, '--to', A, '--to-file', file, '--body', 'x'], /--to or --to-file, not both/);
    });
  });
});

describe('svc send --dry-run', () => {
  it('prints requests, recipients, encoding, segments, characters and media, and sends nothing', async () => {
    mock = mockSends(accepted);
    const body = 'a'.repeat(161);
    const result = await run(['send', '--from', FROM, '--to', A, B, '--body', body, '--media', 'https://e.com/a.png', '--dry-run', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      requests: 1,
      recipients: 2,
      encoding: 'GSM-7',
      segments: 2,
      characters: 161,
      media: [{ url: 'https://e.com/a.png' }],
      totalSegments: 4,
      nonGsmCharacters: [],
      byEncoding: { 'GSM-7': { messages: 2, segments: 4 }, 'UCS-2': { messages: 0, segments: 0 } },
      // Nobody on the opt-out list: counted all the same, so that a script sees the list was honoured.
      optedOut: 0,
    });
    expect(mock.sends).toHaveLength(0);
  });

  it('names the characters that forced UCS-2, in JSON and in the readable summary', async () => {
    mock = mockSends(accepted);
    const json = await run(['send', '--from', FROM, '--to', A, '--body', 'Café ☀ naïve 😀', '--dry-run', '--json']);
    const out = JSON.parse(json.stdout);
    expect(out.encoding).toBe('UCS-2');
    expect(out.nonGsmCharacters).toEqual(['☀', 'ï', '😀']);
    expect(out.characters).toBe(14);
    const text = await run(['send', '--from', FROM, '--to', A, '--body', 'Café ☀', '--dry-run']);
    expect(text.stdout).toContain('Dry run: nothing was sent.');
    expect(text.stdout).toContain('UCS-2 (because of "☀")');
    expect(mock.sends).toHaveLength(0);
  });

  it('counts a templated body per recipient, and checks media files without uploading them', async () => {
    mock = mockSends(accepted);
    const d = dir();
    const file = d.file('to.csv', `name,phone\nAl,${A}\n"${'Z'.repeat(200)}",${B}\n`);
    const png = d.file('p.png', PNG_BYTES);
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi {{name}}', '--media-file', png, '--tenant', TENANT, '--dry-run', '--json']);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out).toMatchObject({ requests: 2, recipients: 2, encoding: 'GSM-7', segments: 2, characters: 203, totalSegments: 3 });
    expect(out.media).toEqual([{ file: png, contentType: 'image/png', bytes: PNG_BYTES.length }]);
    expect(mock.sends).toHaveLength(0);
    expect(mock.others).toHaveLength(0);
  });
});

describe('svc send --to-file', () => {
  it('sends one templated request per recipient, once per number, with a warning for repeats', async () => {
    mock = mockSends(accepted);
    const file = dir().file('to.csv', `\uFEFFName,Phone,Order\r\n"Smith, Ann",${A},A-1\r\n\r\nBob,${B},"B ""2"""\r\nAgain,${A},X\r\n`);
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi {{name}}, order {{ Order }}', '--json']);
    expect(result.code).toBe(0);
    const bodies = Object.fromEntries(mock.sends.map((s) => [s.body.to[0], s.body.body]));
    expect(bodies).toEqual({ [A]: 'Hi Smith, Ann, order A-1', [B]: 'Hi Bob, order B "2"' });
    expect(mock.sends.every((s) => s.body.to.length === 1)).toBe(true);
    expect(result.stderr).toContain(`${file}:5: ${A} is listed again (first on line 2)`);
    const out = JSON.parse(result.stdout) as { to: string[]; messageId: string }[];
    expect(out.map((e) => e.to[0]).sort()).toEqual([A, B]);
    expect(result.stderr).toMatch(/Sent 2 requests .*2 accepted/);
  });

  it('keeps at most --concurrency requests in flight', async () => {
    // Counted by a real server: a request is open from its arrival until its answer is written,
    // and the client frees a slot only once it has read an answer, so the server never sees more
    // open requests than the client's window.
    // Answers wait until the window is full (or nothing more is to come), so the peak is the
    // window itself whatever the timing; the pause before answering gives a client that overfills
    // its window the time to show it.
    const server = await startTestServer();
    const held: ServerResponse[] = [];
    let arrived = 0;
    let peak = 0;
    server.on('POST', '/api/v1/messages', (_req, res) => {
      arrived++;
      held.push(res);
      peak = Math.max(peak, held.length);
      if (held.length !== 3 && arrived !== 40) return;
      setTimeout(() => {
        for (const answer of held.splice(0)) answer.writeHead(202, { 'content-type': 'application/json' }).end('{"messageId":"x","status":"queued"}');
      }, 20);
    });
    // A bulk send reads the from-number's rateLimit once before sending.
    server.on('GET', `/api/v1/phone-numbers/${encodeURIComponent(FROM)}`, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ number: FROM, settings: {} }));
    });
    try {
      const file = dir().file('to.txt', numbers(40).join('\n'));
      const result = await runCli(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--concurrency', '3', '--async', '-o', 'ndjson'], {
        env: { ...MOCK_ENV, SVC_BASE_URL: server.url },
      });
      expect(result.code).toBe(0);
      expect(result.stdout.trim().split('\n')).toHaveLength(40);
      expect(peak).toBe(3);
      expect(server.unhandled).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('exits 6 when some requests fail, with an error element for each', async () => {
    const failing = new Set([numbers(10)[3], numbers(10)[7]]);
    mock = mockSends((request, index) =>
      failing.has(request.body.to[0]!) ? { status: 500, body: { message: 'carrier down', errorCode: 'CARRIER' } } : accepted(request, index),
    );
    const file = dir().file('to.txt', numbers(10).join('\n'));
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--json']);
    expect(result.code).toBe(6);
    const out = JSON.parse(result.stdout) as { to: string[]; error?: { status: number; errorCode: string } }[];
    expect(out).toHaveLength(10);
    const failed = out.filter((e) => e.error !== undefined);
    expect(failed.map((e) => e.to[0]).sort()).toEqual([...failing].sort());
    expect(failed[0]!.error).toMatchObject({ status: 500, errorCode: 'CARRIER' });
    expect(result.stderr).toMatch(/8 accepted, 2 failed/);
  });

  it('exits 6 when an accepted send reports some recipients failed, and 1 when it reports all', async () => {
    mock = mockSends((_request, index) =>
      index === 0
        ? { status: 200, body: { messageId: 'm1', status: 'sent', messages: [{ messageId: 'm1', to: A, status: 'sent' }, { messageId: 'm2', to: B, status: 'failed' }] } }
        : { status: 200, body: { messageId: 'm3', status: 'Failed' } },
    );
    const some = await run(['send', '--from', FROM, '--to', A, B, '--body', 'x', '--json']);
    expect(some.code).toBe(6);
    expect(some.stderr).toContain(`1 of 2 recipients failed: ${B}`);
    expect(JSON.parse(some.stdout)[0].messages[1].status).toBe('failed');
    const all = await run(['send', '--from', FROM, '--to', A, '--body', 'x', '--json']);
    expect(all.code).toBe(1);
    expect(JSON.parse(all.stderr).error.message).toContain(`every recipient failed: ${A}`);
  });

  it('exits with the first error\'s code when every request fails', async () => {
    mock = mockSends(() => ({ status: 403, body: { message: 'not your number' } }));
    const file = dir().file('to.txt', numbers(3).join('\n'));
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('All 3 requests failed');
  });

  it('prints a tab-separated row per request when piped', async () => {
    mock = mockSends((request, index) => (index === 0 ? { status: 400, body: { message: 'bad\tthing' } } : accepted(request, index)));
    const file = dir().file('to.txt', `${A}\n`);
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--concurrency', '1']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(new RegExp(`^\\${A}\\trejected\\t\\t.*bad thing\\n$`));
  });

  it('draws a progress line on a terminal and offers --async beyond 100 recipients', async () => {
    mock = mockSends(accepted);
    const file = dir().file('to.txt', numbers(150).join('\n'));
    const prompter = scriptedPrompter({ 'send to 150 recipients': 'async' }, { select: true });
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x'], { tty: true, prompter, env: { NO_COLOR: '1' } });
    expect(result.code).toBe(0);
    expect(prompter.asked).toHaveLength(1);
    expect(mock.sends.every((s) => s.query === 'isAsync=true')).toBe(true);
    expect(result.stderr).toMatch(/\r\d+\/150 sent \(\d+ accepted\), \d+\/s, \S+ left/);
    expect(result.stderr).toContain('150/150');
    expect(result.stderr).toMatch(/Sent 150 requests/);
    expect(result.stdout).toBe('');
  });

  it('after a bulk send with a journal, says on a terminal how to see what became of the messages; piped, it does not', async () => {
    mock = mockSends(accepted);
    const d = dir();
    const file = d.file('to.txt', numbers(3).join('\n'));
    const journal = join(d.dir, 'run.jsonl');
    const tty = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '--yes'], { tty: true, env: { NO_COLOR: '1' } });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toContain(`See what became of them: svc send report --journal ${journal} --watch\n`);
    const piped = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', join(d.dir, 'other.jsonl')]);
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain('See what became');
  });

  it('advises --async without asking when nobody can answer', async () => {
    mock = mockSends(accepted);
    const file = dir().file('to.txt', numbers(101).join('\n'));
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '-o', 'ndjson', '--yes']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('--async is advised beyond 100 recipients (101 here)');
    expect(mock.sends.every((s) => s.query === 'isAsync=false')).toBe(true);
  });
});

describe('svc send on a terminal: the cost of a long or UCS-2 message first', () => {
  it('shows the segments of a UCS-2 message, and asks nothing when it is one segment each', async () => {
    mock = mockSends(accepted);
    const prompter = scriptedPrompter({});
    const result = await run(['send', '--from', FROM, '--to', A, B, '--body', 'Grüße ☀'], { tty: true, prompter, env: { NO_COLOR: '1' } });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('This message is 7 characters, 1 segment per message in UCS-2 (because of "☀"); 2 segments in total for 2 recipients.');
    expect(mock.sends).toHaveLength(1);
  });

  it('asks before sending a message split into segments: "no" sends nothing (exit 2)', async () => {
    mock = mockSends(accepted);
    const prompter = scriptedPrompter({ 'send 2 segments to 1 recipient': false });
    const result = await run(['send', '--from', FROM, '--to', A, '--body', 'x'.repeat(200)], { tty: true, prompter, env: { NO_COLOR: '1' } });
    // Declining is not an interruption (130): nothing was done, exit 2.
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Nothing was done.');
    expect(mock.sends).toHaveLength(0);
  });

  it('sends after "yes", and --yes sends without asking', async () => {
    mock = mockSends(accepted);
    const prompter = scriptedPrompter({ 'send 2 segments': true });
    expect((await run(['send', '--from', FROM, '--to', A, '--body', 'x'.repeat(200)], { tty: true, prompter })).code).toBe(0);
    expect((await run(['send', '--from', FROM, '--to', A, '--body', 'x'.repeat(200), '--yes'], { tty: true, prompter: scriptedPrompter({}) })).code).toBe(0);
    expect(mock.sends).toHaveLength(2);
  });

  it('asks nothing for a one-segment GSM-7 message', async () => {
    mock = mockSends(accepted);
    const result = await run(['send', '--from', FROM, '--to', A, '--body', 'short'], { tty: true, prompter: scriptedPrompter({}) });
    expect(result.code).toBe(0);
  });
});

describe('svc send --media-file', () => {
  it('uploads each file first (shape A) and sends the returned links', async () => {
    mock = mockSends(accepted, (pool, others) => {
      pool
        .intercept({ method: 'POST', path: '/api/v1/media' })
        .reply((options) => {
          const body = JSON.parse(String(options.body)) as Record<string, unknown>;
          others.push({ method: 'POST', path: '/api/v1/media', body });
          return { statusCode: 201, data: JSON.stringify({ uri: `https://media.test/${String(body['fileName'])}?sig=1`, fileName: body['fileName'] }), responseOptions: { headers: { 'content-type': 'application/json' } } };
        })
        .persist();
    });
    const png = dir().file('photo.png', PNG_BYTES);
    const result = await run(['send', '--from', FROM, '--to', A, '--media', 'https://e.com/x.gif', '--media-file', png, '--tenant', TENANT, '--json']);
    expect(result.code).toBe(0);
    expect(mock.others).toHaveLength(1);
    expect(mock.others[0]!.body).toEqual({ phoneNumber: FROM, fileName: 'photo.png', contentType: 'image/png', data: PNG_BYTES.toString('base64'), tenantId: TENANT });
    expect(mock.sends[0]!.body).toEqual({ from: FROM, to: [A], body: '', mediaUrls: ['https://e.com/x.gif', 'https://media.test/photo.png?sig=1'] });
  });
});

describe('svc send --media with a link of the local sandbox', () => {
  it('takes http:// on a loopback host (what `svc media upload` prints there), and only there', async () => {
    mock = mockSends(accepted);
    const link = 'http://127.0.0.1:4010/media/abc/photo.png?expires=1&sig=x';
    const result = await run(['send', '--from', FROM, '--to', A, '--media', link, '--json']);
    expect(result.code).toBe(0);
    expect(mock.sends[0]!.body.mediaUrls).toEqual([link]);
    const refused = await run(['send', '--from', FROM, '--to', A, '--media', 'http://10.0.0.1/a.png', '--json']);
    expect(refused.code).toBe(2);
  });
});

describe('svc send --media-file with a journal that cannot be opened', () => {
  it('is a usage error before anything is uploaded', async () => {
    const uploads: unknown[] = [];
    mock = mockSends(accepted, (pool) => {
      pool
        .intercept({ method: 'POST', path: '/api/v1/media' })
        .reply((options) => {
          uploads.push(options.body);
          return { statusCode: 201, data: JSON.stringify({ uri: 'https://media.test/photo.png' }), responseOptions: { headers: { 'content-type': 'application/json' } } };
        })
        .persist();
    });
    const d = dir();
    const png = d.file('photo.png', PNG_BYTES);
    const result = await run(['send', '--from', FROM, '--to', A, '--media-file', png, '--tenant', TENANT, '--journal', `${d.dir}/missing/run.jsonl`, '--json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Cannot write --journal .*missing\/run\.jsonl: its directory does not exist/);
    expect(uploads).toEqual([]);
    expect(mock.sends).toEqual([]);
  });
});

describe('svc send --journal and --resume', () => {
  it('--help describes the journal as the write-ahead log it is (docs/decisions.md#bulk-send-journal), not as written after each answer', async () => {
    const help = await run(['send', '--help']);
    expect(help.code).toBe(0);
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('--journal <file> write-ahead log: each request recorded before it leaves, its outcome as the answer arrives');
    expect(text).not.toContain('append one line per request as each answer arrives');
  });

  it('journals each request before it leaves and its answer after, and resumes only those not accepted', async () => {
    const list = numbers(12);
    const d = dir();
    const file = d.file('to.txt', list.join('\n'));
    const journal = `${d.dir}/run.jsonl`;
    const firstRun = new Set([list[2], list[5], list[9]]);
    mock = mockSends((request, index) => (firstRun.has(request.body.to[0]!) ? { status: 503, body: { message: 'busy' } } : accepted(request, index)));
    const first = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '-o', 'ndjson']);
    expect(first.code).toBe(6);
    expect(first.stderr).toContain('--resume');
    const records = await journalRecords(journal);
    expect(records[0]!.type).toBe('header');
    const launches = records.filter((r) => r.type === 'launch');
    const results = records.filter((r) => r.type === 'result');
    expect(launches).toHaveLength(12);
    expect(results).toHaveLength(12);
    // Every launch comes before its result.
    for (const result of results) expect(launches.find((l) => l.seq === result.seq)!.line).toBeLessThan(result.line);
    expect(results.filter((l) => l.outcome === 'rejected').map((l) => l.to[0]).sort()).toEqual([...firstRun].sort());
    expect(results.find((l) => l.outcome === 'accepted')!.messageId).toMatch(/^msg-/);
    expect(results.find((l) => l.outcome === 'rejected')!.error!.status).toBe(503);
    await mock.close();

    // Without --resume an existing journal is not written over.
    mock = mockSends(accepted);
    const again = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '--json']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already holds the journal of a run: continue it with --resume');

    // The answer to list[11] is lost as if the process had died before journaling it.
    dropResultsFor(journal, [list[11]!]);
    const dry = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '--resume', '--dry-run', '--json']);
    expect(JSON.parse(dry.stdout)).toMatchObject({ requests: 3, recipients: 3, skipped: 9, unknown: 1 });
    const dryTable = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '--resume', '--dry-run']);
    expect(dryTable.stdout).toContain(`recipients  3 (9 skipped: 8 already accepted in ${journal}; 1 of unknown outcome, left out until --unknown resend|skip chooses)`);
    const undecided = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '--resume', '--json']);
    expect(undecided.code).toBe(2);
    expect(undecided.stderr).toMatch(/1 recipient has an unknown outcome \(1 in flight.*--unknown resend.*--unknown skip/);
    expect(mock.sends).toHaveLength(0);

    const second = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '--resume', '--unknown', 'skip', '--json']);
    expect(second.code).toBe(0);
    expect(mock.sends.map((s) => s.body.to[0]).sort()).toEqual([...firstRun].sort());
    // Each reason counted and worded apart: sent before, skipped by choice (not "as the journal says").
    expect(second.stderr).toContain('8 recipients already accepted are skipped; 3 rejected earlier are sent again; 1 with an unknown outcome is skipped (--unknown skip).');
    expect(second.stderr).toContain(': 3 accepted, 8 already accepted (skipped, as the journal says), 1 of unknown outcome skipped (--unknown skip).');

    // Everyone but the unknown one is accepted; resending it is a choice.
    const third = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '--resume', '--unknown', 'resend', '--json']);
    expect(third.code).toBe(0);
    expect(mock.sends.slice(3).map((s) => s.body.to)).toEqual([[list[11]]]);
    const fourth = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '--resume', '--json']);
    expect(fourth.code).toBe(0);
    expect(JSON.parse(fourth.stdout)).toEqual([]);
    expect(fourth.stderr).toContain('Nothing left to send: every recipient is already accepted.');
    expect(fourth.stderr).toContain('Resuming from ' + journal + ': 12 recipients already accepted are skipped.');
    expect(mock.sends).toHaveLength(4);
  });

  it('starts afresh over a journal that records no request (its run stopped before sending)', async () => {
    const d = dir();
    const journal = `${d.dir}/run.jsonl`;
    const { JournalWriter } = await import('../../../src/send/journal/writer.js');
    await JournalWriter.create(journal, { from: FROM, body: 'sha256:other', recipients: 'sha256:other', recipientCount: 1, media: [] }).close();
    mock = mockSends(accepted);
    const result = await run(['send', '--from', FROM, '--to', A, '--body', 'x', '--journal', journal, '--json']);
    expect(result.code).toBe(0);
    const records = await journalRecords(journal);
    expect(records.map((r) => r.type)).toEqual(['header', 'launch', 'result']);
  });

  it('asks on a terminal what to do with unknown recipients', async () => {
    const d = dir();
    const journal = `${d.dir}/run.jsonl`;
    mock = mockSends(accepted);
    expect((await run(['send', '--from', FROM, '--to', A, '--body', 'x', '--journal', journal, '--json'])).code).toBe(0);
    dropResultsFor(journal, [A]);
    const prompter = scriptedPrompter({ 'unknown outcome': true });
    const result = await run(['send', '--from', FROM, '--to', A, B, '--body', 'x', '--journal', journal, '--resume', '--json'], { tty: true, prompter });
    // A --to run with other recipients is another run: refused before the question.
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is the journal of another run: its recipients were different (1 then, 2 now)');
    const resumed = await run(['send', '--from', FROM, '--to', A, '--body', 'x', '--journal', journal, '--resume', '--json'], { tty: true, prompter });
    expect(resumed.code).toBe(0);
    expect(prompter.asked).toHaveLength(1);
    expect(prompter.asked[0]).toMatch(/1 recipient has an unknown outcome.*Send to them again\?/);
    expect(mock.sends.map((s) => s.body.to)).toEqual([[A], [A]]);
  });

  it('on Ctrl-C stops launching, waits for the answers in flight, journals them and exits 130', async () => {
    const controller = new AbortController();
    const list = numbers(200);
    const d = dir();
    const file = d.file('to.txt', list.join('\n'));
    const journal = `${d.dir}/run.jsonl`;
    const { MockAgent } = await import('undici');
    const agent = new MockAgent();
    agent.disableNetConnect();
    let requests = 0;
    agent
      .get('https://api.test')
      .intercept({ method: 'POST', path: (p) => p.startsWith('/api/v1/messages') })
      .reply(202, () => {
        requests++;
        if (requests === 20) controller.abort();
        return { messageId: `m${requests}`, status: 'queued' };
      })
      .delay(2)
      .persist();
    const result = await runCli(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--async', '--concurrency', '4', '--journal', journal, '-o', 'ndjson', '--yes'], {
      env: MOCK_ENV,
      dispatcher: agent,
      signal: controller.signal,
    });
    await agent.close();
    expect(result.code).toBe(130);
    const records = await journalRecords(journal);
    const results = records.filter((r) => r.type === 'result');
    // Every request that went out has its answer journaled, and no more were launched.
    expect(results).toHaveLength(requests);
    expect(records.filter((r) => r.type === 'launch')).toHaveLength(requests);
    expect(requests).toBeLessThan(30);
    expect(results.every((l) => l.outcome === 'accepted')).toBe(true);
    expect(result.stdout.trim().split('\n')).toHaveLength(requests);
    expect(result.stderr).toContain('Interrupted after');
  });

  it('exits 143 on SIGTERM and 129 on SIGHUP, as on Ctrl-C', async () => {
    for (const [signal, code] of [['SIGTERM', 143], ['SIGHUP', 129]] as const) {
      const controller = new AbortController();
      const list = numbers(50);
      const file = dir().file('to.txt', list.join('\n'));
      mock = mockSends((request, index) => {
        if (index === 10) controller.abort(new InterruptedError('stopped', signal));
        return accepted(request, index);
      });
      const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--concurrency', '2', '--json'], { signal: controller.signal });
      expect(result.code).toBe(code);
      expect(mock.sends.length).toBeLessThan(15);
      await mock.close();
      mock = undefined;
    }
  });

  it('cuts off what is still in flight when the grace period after a signal ends, and journals it unknown', async () => {
    const controller = new AbortController();
    const server = await startTestServer();
    let held = 0;
    // A bulk send reads its from-number's rateLimit first.
    server.on('GET', `/api/v1/phone-numbers/${encodeURIComponent(FROM)}`, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ number: FROM, status: 'Active' }));
    });
    server.on('POST', '/api/v1/messages', (_req, res) => {
      held++;
      // Never answered: only the grace period ends these.
      if (held === 3) controller.abort(new InterruptedError('Terminated', 'SIGTERM'));
      res.on('close', () => undefined);
    });
    const d = dir();
    const file = d.file('to.txt', numbers(20).join('\n'));
    const journal = `${d.dir}/run.jsonl`;
    const clock = fakeClock();
    const result = await runCli(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--concurrency', '3', '--journal', journal, '--json'], {
      env: { SVC_BASE_URL: server.url, SVC_USERNAME: 'u@example.com', SVC_PASSWORD: 'p' },
      clock,
      signal: controller.signal,
    });
    await server.close();
    expect(result.code).toBe(143);
    const results = (await journalRecords(journal)).filter((r) => r.type === 'result');
    expect(results).toHaveLength(3);
    expect(results.every((r) => r.outcome === 'unknown')).toBe(true);
    expect(clock.sleeps).toContain(10_000);
  });

  it('refuses a journal that is an input, another run\'s, damaged, or not a journal at all', async () => {
    const d = dir();
    const list = numbers(3);
    const file = d.file('to.csv', `phone\n${list.join('\n')}\n`);
    const body = d.file('body.txt', 'hello');
    mock = mockSends(accepted);
    const base = ['send', '--from', FROM, '--to-file', file, '--body-file', body, '--json'];
    const { linkSync, symlinkSync, writeFileSync } = await import('node:fs');
    symlinkSync(file, `${d.dir}/link.csv`);
    linkSync(body, `${d.dir}/hard.txt`);
    for (const [journal, text] of [
      [file, `--journal ${file} is the same file as --to-file ${file}`],
      [`${d.dir}/link.csv`, 'is the same file as --to-file'],
      [`${d.dir}/hard.txt`, 'is the same file as --body-file'],
      [d.dir, 'is not a regular file'],
    ] as const) {
      const result = await run([...base, '--journal', journal]);
      expect(result.code, journal).toBe(2);
      expect(result.stderr).toContain(text);
    }
    expect(readFileSync(file, 'utf8')).toBe(`phone\n${list.join('\n')}\n`);

    const journal = `${d.dir}/run.jsonl`;
    expect((await run([...base, '--journal', journal])).code).toBe(0);
    const other = await run(['send', '--from', FROM, '--to-file', file, '--body', 'another text', '--journal', journal, '--resume', '--json']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('is the journal of another run: its message body (or template) was different');

    const lines = readFileSync(journal, 'utf8').split('\n');
    const index = lines.findIndex((line) => line.includes('"accepted"'));
    lines[index] = lines[index]!.replace('"accepted"', '"rejected"');
    writeFileSync(`${d.dir}/damaged.jsonl`, lines.join('\n'));
    const damaged = await run([...base, '--journal', `${d.dir}/damaged.jsonl`, '--resume']);
    expect(damaged.code).toBe(2);
    expect(damaged.stderr).toContain(`${d.dir}/damaged.jsonl:${index + 1}: a damaged record`);
    // Damaged last, nothing sound after it: a dry run (no lock: a send could be writing that line)
    // leaves it uncounted and says so; the resume itself, under the lock, refuses it.
    const whole = readFileSync(journal, 'utf8').split('\n').slice(0, -1);
    expect(whole.at(-1)).toContain('"accepted"');
    whole[whole.length - 1] = whole.at(-1)!.replace('"accepted"', '"rejected"');
    writeFileSync(`${d.dir}/damaged-last.jsonl`, `${whole.join('\n')}\n`);
    const dryRun = await run([...base, '--journal', `${d.dir}/damaged-last.jsonl`, '--resume', '--dry-run', '--unknown', 'skip']);
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stderr).toContain(`${d.dir}/damaged-last.jsonl:${whole.length}: the last record is damaged and is not counted; without --dry-run the send refuses this journal`);
    const resumed = await run([...base, '--journal', `${d.dir}/damaged-last.jsonl`, '--resume', '--unknown', 'skip']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain(`${d.dir}/damaged-last.jsonl:${whole.length}: a damaged record`);

    writeFileSync(`${d.dir}/v1.jsonl`, `${JSON.stringify({ to: [list[0]], outcome: 'accepted', at: 'x' })}\n`);
    const old = await run([...base, '--journal', `${d.dir}/v1.jsonl`, '--resume']);
    expect(old.code).toBe(2);
    expect(old.stderr).toContain('a journal of an earlier svc (format 1');

    const csvAsJournal = await run([...base.slice(0, 5), '--body', 'x', '--journal', file, '--resume']);
    expect(csvAsJournal.code).toBe(2);
    expect(mock.sends).toHaveLength(3);
  });
});

describe('svc send: inputs read once and bounded', () => {
  it('reads the recipients from standard input with --to-file -, checked whole before sending', async () => {
    mock = mockSends(accepted);
    const list = numbers(5);
    const result = await run(['send', '--from', FROM, '--to-file', '-', '--body', 'x', '--json'], { stdin: `${list.join('\n')}\n` });
    expect(result.code).toBe(0);
    expect(mock.sends.map((s) => s.body.to[0])).toEqual(list);
    const bad = await run(['send', '--from', FROM, '--to-file', '-', '--body', 'x', '--json'], { stdin: `${list.join('\n')}\nnot-a-number\n` });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/standard input:6: \\"not-a-number\\" is not an E\.164 number/);
    expect(mock.sends).toHaveLength(5);
    const both = await run(['send', '--from', FROM, '--to-file', '-', '--json'], { stdin: list.join('\n') });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('cannot both come from standard input');
  });

  it('refuses binary data and a record without end, before reading them whole', async () => {
    mock = mockSends(accepted);
    const d = dir();
    const nul = d.file('nul.txt', Buffer.concat([Buffer.from('+15557650001\n'), Buffer.alloc(1000)]));
    const long = d.file('long.txt', `+15557650001\n${'1'.repeat(70 * 1024)}`);
    const unclosed = d.file('unclosed.csv', `phone,name\n+15557650001,"${'x'.repeat(70 * 1024)}`);
    for (const [file, text] of [
      [nul, 'holds NUL bytes'],
      [long, `${long}:2: a record longer than 65536 characters`],
      [unclosed, `${unclosed}:2: a record longer than 65536 characters`],
    ] as const) {
      const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--json']);
      expect(result.code, file).toBe(2);
      expect(result.stderr).toContain(text);
    }
    const huge = await run(['send', '--from', FROM, '--to', A, '--json'], { stdin: 'x'.repeat(64 * 1024 + 1) });
    expect(huge.code).toBe(2);
    expect(huge.stderr).toContain('Cannot read the body on standard input: larger than the limit of 64 KiB');
    const bigFile = d.file('big.txt', 'x'.repeat(64 * 1024 + 1));
    const big = await run(['send', '--from', FROM, '--to', A, '--body-file', bigFile, '--json']);
    expect(big.code).toBe(2);
    expect(big.stderr).toContain(`Cannot read --body-file ${bigFile}: larger than the limit of 64 KiB`);
    expect(mock.sends).toHaveLength(0);
  });
});

describe('svc send --store and --no-store', () => {
  it('records what was sent in --store DIR (read by svc thread --store DIR), in no store with --no-store', async () => {
    mock = mockSends(accepted);
    const d = dir();
    const store = join(d.dir, 'shared-events');
    const env = { SVC_DATA_DIR: join(d.dir, 'data') };
    const sent = await run(['send', '--from', FROM, '--to', A, '--body', 'Stored elsewhere', '--json', '--store', store], { env });
    expect(sent.code, sent.stderr).toBe(0);
    const thread = await run(['thread', A, '--store', store], { env });
    expect(thread.code, thread.stderr).toBe(0);
    expect(thread.stdout).toContain('Stored elsewhere');
    // Not in the default store: it went where --store said.
    expect(existsSync(join(d.dir, 'data', 'events'))).toBe(false);
    const off = await run(['send', '--from', FROM, '--to', A, '--body', 'Not stored', '--json', '--no-store'], { env });
    expect(off.code, off.stderr).toBe(0);
    expect(existsSync(join(d.dir, 'data', 'events'))).toBe(false);
    expect((await run(['thread', A, '--store', store], { env })).stdout).not.toContain('Not stored');
    expect((await run(['send', '--from', FROM, '--to', A, '--body', 'x', '--store', ''], { env })).code).toBe(2);
  });
});
