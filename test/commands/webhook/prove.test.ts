import { afterEach, describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../../helpers/cli.js';
import {
  expressReceiver,
  failingReceiver,
  fastifyReceiver,
  flaskReceiver,
  noSignatureCheckReceiver,
  reserialisingReceiver,
  startReceiver,
  type Handle,
  type Receiver,
} from '../../webhooks/prove/receivers.js';

// `svc webhook prove` against small real receivers on 127.0.0.1: each gets the verdicts its
// code deserves and the contract's exit code, from a fixed number of requests to the one URL.

const SECRET = 'whsec-prove-test-7c1e9a0b4d';
const AUTH = 'hooks:pa55-w0rd-xyz';
const ENV = { SVC_WEBHOOK_SECRET: SECRET, HOOK_AUTH: AUTH };
/** The battery: 7 events to acknowledge, 6 to refuse, 6 advisory requests; 2 more with Basic auth. */
const REQUESTS = 19;
const REQUESTS_WITH_AUTH = 21;

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(handle: Handle): Promise<Receiver> {
  const started = await startReceiver(handle);
  receivers.push(started);
  return started;
}

interface JsonCheck {
  id: string;
  name: string;
  required: boolean;
  verdict: 'passed' | 'failed';
  sent: string;
  received: { status: number | null; ms: number | null; error: string | null; body: string };
  answers: unknown[];
  fix: string | null;
  note: string | null;
}
interface JsonReport {
  url: string;
  passed: boolean;
  requests: number;
  serviceTimeoutMs: number;
  checks: JsonCheck[];
}

async function prove(url: string, extra: string[] = [], options: Parameters<typeof runCli>[1] = {}) {
  const result = await runCli(['webhook', 'prove', url, ...extra, '--json'], { env: ENV, clock: fakeClock(), ...options });
  const report = result.stdout === '' ? undefined : (JSON.parse(result.stdout) as JsonReport);
  return { ...result, report };
}

/** id -> verdict, for the checks that failed (everything else passed). */
function failures(report: JsonReport | undefined): Record<string, string> {
  return Object.fromEntries((report?.checks ?? []).filter((c) => c.verdict === 'failed').map((c) => [c.id, c.required ? 'required' : 'advisory']));
}

const ALL_IDS = [
  'message-received',
  'message-attachments',
  'receipt-sending',
  'receipt-sent',
  'receipt-delivered',
  'receipt-failed',
  'order-status',
  'forged-signature',
  'other-secret',
  'missing-signature',
  'reserialised-spaces',
  'reserialised-key-order',
  'reserialised-escapes',
  'duplicate-delivery',
  'receipts-out-of-order',
  'large-body',
  'unknown-fields',
  'answer-time',
];

describe('svc webhook prove: verdicts for each kind of receiver', () => {
  it('a correct receiver (the Express example) passes every check: exit 0, 19 requests, all to its URL', async () => {
    const r = await receiver(expressReceiver({ secrets: [SECRET] }));
    const { code, report, stderr } = await prove(r.url);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(report?.checks.map((c) => c.id)).toEqual(ALL_IDS);
    expect(failures(report)).toEqual({});
    expect(report?.passed).toBe(true);
    expect(report?.requests).toBe(REQUESTS);
    expect(r.requests).toHaveLength(REQUESTS);
    expect(new Set(r.requests.map((q) => `${q.method} ${q.path}`))).toEqual(new Set(['POST /webhooks/svc']));
    // The duplicate check repeats one delivery id; every other request has its own.
    const ids = r.requests.map((q) => q.headers['x-svc-delivery']);
    expect(new Set(ids).size).toBe(REQUESTS - 1);
    const duplicate = report?.checks.find((c) => c.id === 'duplicate-delivery');
    expect(duplicate?.note).toMatch(/X-Svc-Delivery/);
    expect(duplicate?.answers).toHaveLength(2);
  });

  it('the Fastify and Flask examples pass too, with Basic auth checked: exit 0, 21 requests', async () => {
    for (const make of [fastifyReceiver, flaskReceiver, expressReceiver]) {
      const r = await receiver(make({ secrets: [SECRET], basicAuth: AUTH }));
      const { code, report } = await prove(r.url, ['--basic-auth-env', 'HOOK_AUTH']);
      expect(failures(report)).toEqual({});
      expect(code).toBe(0);
      expect(r.requests).toHaveLength(REQUESTS_WITH_AUTH);
      expect(report?.checks.filter((c) => c.id.startsWith('basic-auth-')).map((c) => [c.id, c.verdict, c.received.status])).toEqual([
        ['basic-auth-wrong', 'passed', 401],
        ['basic-auth-missing', 'passed', 401],
      ]);
    }
  });

  it('a receiver that never checks signatures fails every refusal check: exit 7, with the fix named', async () => {
    const r = await receiver(noSignatureCheckReceiver());
    const { code, report } = await prove(r.url);
    expect(code).toBe(7);
    expect(report?.passed).toBe(false);
    expect(failures(report)).toEqual({
      'forged-signature': 'required',
      'other-secret': 'required',
      'missing-signature': 'required',
      'reserialised-spaces': 'required',
      'reserialised-key-order': 'required',
      'reserialised-escapes': 'required',
    });
    const forged = report?.checks.find((c) => c.id === 'forged-signature');
    expect(forged?.received.status).toBe(200);
    expect(forged?.fix).toBe('It acknowledged an event with a made-up X-Svc-Signature (HTTP 200). Verify the signature before anything else and answer 401 when it does not match.');
    // The subtler signature checks name the one real fix rather than a diagnosis of their own.
    for (const id of ['other-secret', 'reserialised-spaces', 'reserialised-key-order', 'reserialised-escapes']) {
      expect(report?.checks.find((c) => c.id === id)?.fix).toMatch(/^It acknowledged this too: the receiver checks no signature at all/);
    }
    expect(r.requests).toHaveLength(REQUESTS);
  });

  it('a receiver that verifies its own re-serialisation fails the spacing and escape checks (not key order): exit 7', async () => {
    const r = await receiver(reserialisingReceiver({ secrets: [SECRET] }));
    const { code, report } = await prove(r.url);
    expect(code).toBe(7);
    expect(failures(report)).toEqual({ 'reserialised-spaces': 'required', 'reserialised-escapes': 'required' });
    expect(report?.checks.find((c) => c.id === 'reserialised-spaces')?.fix).toMatch(/raw body/);
    // What it was sent: the same JSON in other bytes, with the original's signature.
    const spaced = r.requests.find((q) => q.body.toString('utf8').includes('\n  "messageId"'));
    expect(spaced).toBeDefined();
  });

  it('a receiver that skips the Basic auth check fails the two credential checks: exit 7', async () => {
    const r = await receiver(expressReceiver({ secrets: [SECRET], basicAuth: AUTH }, { skipBasicAuth: true }));
    const { code, report } = await prove(r.url, ['--basic-auth-env', 'HOOK_AUTH']);
    expect(code).toBe(7);
    expect(failures(report)).toEqual({ 'basic-auth-wrong': 'required', 'basic-auth-missing': 'required' });
    expect(report?.checks.find((c) => c.id === 'basic-auth-missing')?.fix).toMatch(/without Basic credentials/);
  });

  it('a receiver that checks Basic auth, run without --basic-auth-env, fails every acknowledgement and says how to give them', async () => {
    const r = await receiver(expressReceiver({ secrets: [SECRET], basicAuth: AUTH }));
    const { code, report } = await prove(r.url);
    expect(code).toBe(7);
    expect(report?.checks.find((c) => c.id === 'message-received')?.fix).toMatch(/--basic-auth-env/);
  });

  it('a slow receiver (answers after the service\'s 10 s) is acknowledged but fails the timing check: exit 0', async () => {
    const clock = fakeClock();
    // Each valid event is answered 10.5 s later on the command's clock: no test waits for it.
    const r = await receiver(expressReceiver({ secrets: [SECRET] }, { beforeAnswer: () => clock.advance(10_500) }));
    const { code, report } = await prove(r.url, ['--timeout', '15'], { clock });
    expect(failures(report)).toEqual({ 'answer-time': 'advisory' });
    expect(code).toBe(0);
    const timing = report?.checks.find((c) => c.id === 'answer-time');
    expect(timing?.received).toMatchObject({ status: 200, ms: 10_500 });
    expect(timing?.fix).toMatch(/^Answer within 10 s: message received \(10.5 s\), message with attachments \(10.5 s\), .* took longer\. The service gives up at 10 s/);
    expect(report?.checks.find((c) => c.id === 'message-received')?.received).toMatchObject({ status: 200, ms: 10_500 });
  });

  it('a receiver that does not answer within --timeout fails that acknowledgement: exit 7', async () => {
    const clock = fakeClock();
    const correct = expressReceiver({ secrets: [SECRET] });
    const r = await receiver((request) => {
      if (request.body.includes('"status":"failed"')) {
        clock.advance(3_000);
        return undefined;
      }
      return correct(request);
    });
    const { code, report } = await prove(r.url, ['--timeout', '2'], { clock });
    expect(code).toBe(7);
    expect(failures(report)).toEqual({ 'receipt-failed': 'required', 'answer-time': 'advisory' });
    const failed = report?.checks.find((c) => c.id === 'receipt-failed');
    expect(failed?.received).toMatchObject({ status: null, error: 'no answer within 2 s' });
    expect(failed?.fix).toMatch(/answer 2xx at once/);
  });

  it('a receiver answering 500 fails every acknowledgement and names the log: exit 7', async () => {
    const r = await receiver(failingReceiver());
    const { code, report } = await prove(r.url);
    expect(code).toBe(7);
    expect(failures(report)).toEqual({
      'message-received': 'required',
      'message-attachments': 'required',
      'receipt-sending': 'required',
      'receipt-sent': 'required',
      'receipt-delivered': 'required',
      'receipt-failed': 'required',
      'order-status': 'required',
      'duplicate-delivery': 'advisory',
      'receipts-out-of-order': 'advisory',
      'large-body': 'advisory',
      'unknown-fields': 'advisory',
    });
    expect(report?.checks.find((c) => c.id === 'order-status')?.fix).toMatch(/HTTP 500: "Internal Server Error.*retries it for up to 24 h/);
  });

  it('a receiver that crashes on the first forged request: later checks name it as unreachable', async () => {
    const correct = expressReceiver({ secrets: [SECRET] });
    let r: Receiver | undefined;
    r = await receiver((request) => {
      if (request.headers['x-svc-signature'] === undefined) {
        void r?.close();
        return undefined;
      }
      return correct(request);
    });
    const { code, report } = await prove(r.url);
    expect(code).toBe(7);
    const after = report?.checks.find((c) => c.id === 'reserialised-spaces');
    expect(after?.verdict).toBe('failed');
    expect(after?.fix).toMatch(/could not be reached/);
  });
});

describe('svc webhook prove: one target, a bounded battery', () => {
  it('a redirect is an answer, never followed: the other server gets nothing', async () => {
    const elsewhere = await receiver(expressReceiver({ secrets: [SECRET] }));
    const r = await receiver(() => ({ status: 307, headers: { Location: elsewhere.url } }));
    const { code, report } = await prove(r.url);
    expect(code).toBe(7);
    expect(elsewhere.requests).toHaveLength(0);
    expect(r.requests).toHaveLength(REQUESTS);
    expect(report?.checks.find((c) => c.id === 'message-received')?.fix).toMatch(/does not follow redirects/);
  });

  it('an address nobody listens on is exit 1 after one attempt', async () => {
    const gone = await startReceiver(() => ({ status: 200 }));
    await gone.close();
    const result = await runCli(['webhook', 'prove', gone.url], { env: ENV, clock: fakeClock() });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+\/webhooks\/svc: connect ECONNREFUSED/);
    expect(result.stderr).toContain('nothing was checked');
    expect(result.stdout).toBe('');
  });

  it('Ctrl-C cuts the request under way and ends the run: exit 130, nothing more sent', async () => {
    const stop = new AbortController();
    const r = await receiver(() => {
      stop.abort();
      return undefined;
    });
    const result = await runCli(['webhook', 'prove', r.url], { env: ENV, clock: fakeClock(), signal: stop.signal });
    expect(result.code).toBe(130);
    expect(r.requests).toHaveLength(1);
    expect(result.stdout).toBe('');
  });

  it('the run stops at its deadline: checks not sent are failed, and nothing more is sent', async () => {
    const clock = fakeClock();
    // Each answer takes 1.5 s of a 1 s --timeout's 10 s run: seven requests fit.
    const correct = expressReceiver({ secrets: [SECRET] });
    const r = await receiver((request) => {
      clock.advance(1_500);
      return correct(request);
    });
    const { code, report } = await prove(r.url, ['--timeout', '1'], { clock });
    expect(code).toBe(7);
    expect(r.requests).toHaveLength(7);
    expect(report?.requests).toBe(7);
    const unsent = report?.checks.find((c) => c.id === 'forged-signature');
    expect(unsent?.received).toMatchObject({ status: null, error: 'not sent' });
    expect(unsent?.fix).toMatch(/deadline \(10 s\)/);
  });
});

describe('svc webhook prove: arguments are checked before any request (exit 2)', () => {
  const cases: [string, string[], Record<string, string | undefined>, RegExp][] = [
    ['an unset secret variable', ['--secret-env', 'NOPE_SECRET'], {}, /NOPE_SECRET is not set/],
    ['the default variable unset', [], { SVC_WEBHOOK_SECRET: undefined }, /SVC_WEBHOOK_SECRET is not set/],
    ['a secret given in place of a name', ['--secret-env', 'abc def'], {}, /name of an environment variable/],
    ['an unset Basic auth variable', ['--basic-auth-env', 'NO_AUTH'], {}, /NO_AUTH is not set/],
    ['a Basic auth value without a colon', ['--basic-auth-env', 'BAD_AUTH'], { BAD_AUTH: 'justapassword' }, /BAD_AUTH must hold USER:PASSWORD/],
    ['a --timeout of zero', ['--timeout', '0'], {}, /--timeout must be a number from 0.1 to 120, not "0"/],
    ['a --timeout that is not a number', ['--timeout', 'soon'], {}, /--timeout must be a number/],
  ];
  for (const [what, args, env, message] of cases) {
    it(`${what}`, async () => {
      const r = await receiver(() => ({ status: 200 }));
      const result = await runCli(['webhook', 'prove', r.url, ...args], { env: { ...ENV, ...env }, clock: fakeClock() });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(r.requests).toHaveLength(0);
      expect(result.stderr).not.toContain('justapassword');
    });
  }

  const urls: [string, RegExp][] = [
    ['not a url', /"not a url" is not a URL/],
    ['ftp://127.0.0.1/hook', /ftp:\/\/ is not a webhook URL/],
    ['http://example.com/hook', /http:\/\/example.com\/hook: plain http:\/\/ is allowed only to loopback/],
    ['http://user:hunter22@127.0.0.1:9/hook', /the URL holds credentials/],
  ];
  for (const [url, message] of urls) {
    it(`the URL ${url}`, async () => {
      const result = await runCli(['webhook', 'prove', url], { env: ENV, clock: fakeClock() });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toContain('hunter22');
    });
  }
});

describe('svc webhook prove: the report', () => {
  it('never prints the secret or the Basic credentials, in any form of output', async () => {
    const r = await receiver(noSignatureCheckReceiver());
    const runs = [
      await runCli(['webhook', 'prove', r.url, '--basic-auth-env', 'HOOK_AUTH', '--json'], { env: ENV, clock: fakeClock() }),
      await runCli(['webhook', 'prove', r.url, '--basic-auth-env', 'HOOK_AUTH'], { env: ENV, clock: fakeClock() }),
      await runCli(['webhook', 'prove', r.url, '--basic-auth-env', 'HOOK_AUTH'], { env: { ...ENV, SVC_PAGER: 'cat' }, clock: fakeClock(), tty: true, columns: 80 }),
    ];
    const password = AUTH.split(':')[1]!;
    for (const run of runs) {
      const all = run.stdout + run.stderr;
      expect(run.code).toBe(7);
      for (const secret of [SECRET, password, AUTH, Buffer.from(AUTH).toString('base64')]) expect(all).not.toContain(secret);
      // Nothing had to be hidden: the report never tried to print them.
      expect(all).not.toContain('[REDACTED]');
    }
  });

  it('on a terminal: a table per kind, what to fix wrapped within the width, a summary', async () => {
    const r = await receiver(reserialisingReceiver({ secrets: [SECRET] }));
    for (const columns of [40, 80, 120]) {
      const result = await runCli(['webhook', 'prove', r.url, '--no-color'], { env: { ...ENV, SVC_PAGER: 'cat' }, clock: fakeClock(), tty: true, columns });
      expect(result.code).toBe(7);
      const lines = result.stdout.split('\n');
      for (const line of lines) expect([...line].length).toBeLessThanOrEqual(columns);
      expect(result.stdout).toContain('Required: each must pass');
      expect(result.stdout).toContain('What to fix');
      expect(result.stdout.replace(/\s+/g, ' ')).toContain('2 of 13 required checks failed (re-serialised: spaces, re-serialised: escapes); all 5 advisory checks passed.');
      if (columns >= 80) expect(result.stdout).toMatch(/re-serialised: spaces\s+FAILED\s+body indented/);
      else expect(result.stdout).toMatch(/FAILED re-serialised: spaces\n\s+sent body indented/);
    }
  });

  it('piped: one tab-separated row a check, the summary on stderr', async () => {
    const r = await receiver(expressReceiver({ secrets: [SECRET] }));
    const result = await runCli(['webhook', 'prove', r.url], { env: ENV, clock: fakeClock() });
    expect(result.code).toBe(0);
    const rows = result.stdout.trimEnd().split('\n').map((line) => line.split('\t'));
    expect(rows).toHaveLength(ALL_IDS.length);
    expect(rows[0]).toEqual(['message-received', 'required', 'passed', 'MessageReceived, signed', '200', '0', '']);
    expect(result.stderr).toBe('All 13 required checks passed; all 5 advisory checks passed.\n');
  });
});
