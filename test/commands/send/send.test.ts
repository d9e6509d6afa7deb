import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeClock, runCli, scriptedPrompter } from '../../helpers/cli.js';
import { MOCK_ENV } from '../../helpers/mock-api.js';
import { startTestServer } from '../../helpers/http-server.js';
import { accepted, mockSends, numbers, PNG_BYTES, tempDir, type SendMock } from './helpers.js';

const FROM = '+15551230000';
const A = '+15557650001';
const B = '+15557650002';
const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

let mock: SendMock | undefined;
let dirs: ReturnType<typeof tempDir>[] = [];
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  for (const d of dirs) d.cleanup();
  dirs = [];
});
const dir = (): ReturnType<typeof tempDir> => {
  const d = tempDir();
  dirs.push(d);
  return d;
};
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
    [['--from', FROM, '--to', A, '--body-file', '/nonexistent/body.txt'], /Cannot read body file \/nonexistent\/body\.txt: no such file/],
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
      await refused(['send', '--from', FROM, '--to', A, '--media-file', file], /A tenant is needed/);
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
    const server = await startTestServer();
    let open = 0;
    let peak = 0;
    server.on('POST', '/api/v1/messages', (_req, res) => {
      open++;
      peak = Math.max(peak, open);
      setTimeout(() => {
        open--;
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"messageId":"x","status":"queued"}');
      }, 20);
    });
    try {
      const file = dir().file('to.txt', numbers(40).join('\n'));
      const result = await runCli(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--concurrency', '3', '--async', '-o', 'ndjson'], {
        env: { ...MOCK_ENV, SVC_BASE_URL: server.url },
      });
      expect(result.code).toBe(0);
      expect(result.stdout.trim().split('\n')).toHaveLength(40);
      expect(peak).toBeLessThanOrEqual(3);
      expect(peak).toBeGreaterThan(1);
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
    const prompter = scriptedPrompter({ asynchronously: true, 'send to 150 recipients': true });
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x'], { tty: true, prompter, env: { NO_COLOR: '1' } });
    expect(result.code).toBe(0);
    expect(prompter.asked).toHaveLength(2);
    expect(mock.sends.every((s) => s.query === 'isAsync=true')).toBe(true);
    expect(result.stderr).toMatch(/\r\[#*-*\] \d+\/150 sent \d+ failed 0/);
    expect(result.stderr).toContain('150/150');
    expect(result.stderr).toMatch(/Sent 150 requests/);
    expect(result.stdout).toBe('');
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
  it('shows the segments and asks before sending; "no" sends nothing', async () => {
    mock = mockSends(accepted);
    const prompter = scriptedPrompter({ 'send it': false });
    const result = await run(['send', '--from', FROM, '--to', A, B, '--body', 'Grüße ☀'], { tty: true, prompter, env: { NO_COLOR: '1' } });
    // Declining is not an interruption (130): nothing was done, exit 2.
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Nothing was done.');
    expect(result.stderr).toContain('This message is 7 characters, 1 segment per message in UCS-2 (because of "☀"); 2 segments in total for 2 recipients.');
    expect(mock.sends).toHaveLength(0);
  });

  it('sends after "yes", and --yes sends without asking', async () => {
    mock = mockSends(accepted);
    const prompter = scriptedPrompter({ 'send it': true });
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
    expect(result.stderr).toMatch(/Cannot open the journal/);
    expect(uploads).toEqual([]);
    expect(mock.sends).toEqual([]);
  });
});

describe('svc send --journal and --resume', () => {
  it('journals one line per request and resumes only those not accepted, saying how many were unknown', async () => {
    const list = numbers(12);
    const d = dir();
    const file = d.file('to.txt', list.join('\n'));
    const journal = `${d.dir}/run.jsonl`;
    const firstRun = new Set([list[2], list[5], list[9]]);
    mock = mockSends((request, index) => (firstRun.has(request.body.to[0]!) ? { status: 503, body: { message: 'busy' } } : accepted(request, index)));
    const first = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '-o', 'ndjson']);
    expect(first.code).toBe(6);
    expect(first.stderr).toContain('--resume');
    const lines = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { to: string[]; outcome: string; messageId?: string; error?: { status: number } });
    expect(lines).toHaveLength(12);
    expect(lines.filter((l) => l.outcome === 'rejected').map((l) => l.to[0]).sort()).toEqual([...firstRun].sort());
    expect(lines.find((l) => l.outcome === 'accepted')!.messageId).toMatch(/^msg-/);
    expect(lines.find((l) => l.outcome === 'rejected')!.error!.status).toBe(503);
    await mock.close();

    // A hand-written `unknown` entry stands for a request that went out and got no answer.
    const { appendFileSync } = await import('node:fs');
    appendFileSync(journal, `${JSON.stringify({ to: [list[11]], outcome: 'unknown', at: '2026-01-01T00:00:00Z' })}\n{"to": ["+1555`);
    mock = mockSends(accepted);
    const dry = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '--resume', '--dry-run', '--json']);
    expect(JSON.parse(dry.stdout)).toMatchObject({ requests: 3, recipients: 3, skipped: 9 });
    const second = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '--resume', '--json']);
    expect(second.code).toBe(0);
    expect(mock.sends.map((s) => s.body.to[0]).sort()).toEqual([...firstRun].sort());
    expect(second.stderr).toContain('9 recipients already accepted are skipped; 3 rejected earlier are sent again');
    expect(second.stderr).toMatch(/not a journal entry/);

    // Everyone is accepted now: a third resume sends nothing.
    const third = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '--resume', '--json']);
    expect(third.code).toBe(0);
    expect(JSON.parse(third.stdout)).toEqual([]);
    expect(third.stderr).toContain('Nothing left to send');
    expect(mock.sends).toHaveLength(3);
  });

  it('counts unknown outcomes when resuming', async () => {
    const d = dir();
    const journal = d.file('run.jsonl', `${JSON.stringify({ to: [A], outcome: 'unknown', at: 'x' })}\n${JSON.stringify({ to: [B], outcome: 'accepted', at: 'x' })}\n`);
    mock = mockSends(accepted);
    const result = await run(['send', '--from', FROM, '--to', A, B, '--body', 'x', '--journal', journal, '--resume', '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('1 recipients already accepted are skipped; 1 recorded as unknown');
    expect(mock.sends.map((s) => s.body.to)).toEqual([[A]]);
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
    const lines = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { outcome: string });
    // Every request that went out has its answer journaled, and no more were launched.
    expect(lines).toHaveLength(requests);
    expect(requests).toBeLessThan(30);
    expect(lines.every((l) => l.outcome === 'accepted')).toBe(true);
    expect(result.stdout.trim().split('\n')).toHaveLength(requests);
    expect(result.stderr).toContain('Interrupted after');
  });
});
