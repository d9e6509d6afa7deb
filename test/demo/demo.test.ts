import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { inflateSync } from 'node:zlib';
import { spawn } from 'node:child_process';
import { runCli } from '../helpers/cli.js';
import { main } from '../../src/cli.js';
import { BIN } from '../helpers/spawn.js';
import { sniffContentType } from '../../src/domain/media-formats.js';
import { plainPalette } from '../../src/webhooks/format.js';
import { drawDemoPng } from '../../src/demo/png.js';
import { messageIdIn, runTour, shellQuote, TourStepError } from '../../src/demo/tour.js';
import { InterruptedError } from '../../src/errors.js';
import { ExchangeLogFiles } from '../sandbox/openapi-check.js';

// The tour runs the real commands against a real in-process sandbox and listener; the sandbox is
// sped up so that the whole walk takes a second or two.

function transcript(): PassThrough & { text: string } {
  const stream = new PassThrough() as PassThrough & { text: string };
  stream.text = '';
  stream.on('data', (chunk: Buffer) => (stream.text += chunk.toString('utf8')));
  return stream;
}

describe('svc demo', () => {
  it('walks through every step with real commands, shows the webhooks arriving, exits 0 and leaves the user\'s profiles alone', async () => {
    const userConfig = mkdtempSync(join(tmpdir(), 'svc-demo-user-'));
    try {
      // The tour's commands see only the environment it gives them; where it gives no data
      // directory they would fall back to the home directory's: point that at a scratch one.
      const exchanges = new ExchangeLogFiles();
      const home = process.env['HOME'];
      process.env['HOME'] = userConfig;
      let result: Awaited<ReturnType<typeof runCli>>;
      try {
        result = await runCli(['demo', '--time-scale', '20'], { env: { SVC_CONFIG_DIR: userConfig, ...exchanges.env() } });
      } finally {
        process.env['HOME'] = home;
      }
      expect(result.code, result.stderr).toBe(0);
      // The tour's sends go to its own event store, not into the user's.
      expect(existsSync(join(userConfig, '.local', 'share', 'svc'))).toBe(false);
      // Every request the tour's commands sent to its sandbox, and every answer, as the OpenAPI document says.
      try {
        expect(exchanges.check()).toBeGreaterThan(5);
      } finally {
        exchanges.dispose();
      }
      const out = result.stdout;
      const order = [
        /1\. Start a local sandbox/,
        /Sandbox running at http:\/\/127\.0\.0\.1:\d+/,
        /2\. Start a webhook listener/,
        /\$ svc auth login --sandbox --base-url http:\/\/127\.0\.0\.1:\d+\n/,
        /Logged in to http:\/\/127\.0\.0\.1:\d+ as sandbox@example\.com/,
        /\$ svc tenant create --tenant-id [0-9a-f-]{36} .*--webhook-primary-uri http:\/\/127\.0\.0\.1:\d+\/ --webhook-secret-env SVC_DEMO_WEBHOOK_SECRET/,
        /settings\.webhookSecret\t\*{8}/,
        /\$ svc number provision \+15555550100 --tenant [0-9a-f-]{36} --type SMSMMS --class P2P --wait/,
        /\[listener\] .*order +#\d+ +Completed/,
        /\$ svc send --from \+15555550100 --to \+15551234567 --body 'Hello from svc!/,
        /\[listener\] .*receipt +[0-9a-f-]{36} +delivered/,
        /\$ svc send .*--media-file \S+svc-demo\.png --tenant [0-9a-f-]{36}/,
        /\$ svc message get [0-9a-f-]{36}/,
        /mediaUrls\thttp:\/\/127\.0\.0\.1:\d+\/media\/\S+\/svc-demo\.png/,
        /\$ svc sandbox inbound --to \+15555550100 --from \+15551234567 --body 'Hi! Got your picture\.'/,
        /\[listener\] .*message +\+15551234567 -> \+15555550100 +"Hi! Got your picture\."/,
        /9\. Shut down/,
        /Listener and sandbox stopped; \d+ webhook events were received and verified/,
        /What next/,
      ];
      let from = 0;
      for (const pattern of order) {
        const match = pattern.exec(out.slice(from));
        expect(match, `${String(pattern)} after offset ${from}`).not.toBeNull();
        from += (match?.index ?? 0) + (match?.[0].length ?? 0);
      }
      expect(out.match(/\[listener\] .*receipt +[0-9a-f-]{36} +delivered/g)).toHaveLength(2);
      expect(out).not.toContain('refused');
      expect(readdirSync(userConfig)).toEqual([]);
    } finally {
      rmSync(userConfig, { recursive: true, force: true });
    }
  });

  it('a step that fails stops the tour with an error naming it, after closing everything', async () => {
    const out = transcript();
    // +1555010xxxx is the sandbox's failing range: the order ends Failed and --wait exits 5.
    const tour = runTour({ runCommand: main, out, isTTY: false, columns: 100, color: false, palette: plainPalette, signal: new AbortController().signal, timeScale: 20, number: '+15550100123' });
    await expect(tour).rejects.toThrow(TourStepError);
    await expect(tour).rejects.toThrow(/demo step "provision a number" failed: `svc number provision` exited with 5/);
    expect(out.text).toContain('$ svc number provision +15550100123');
    expect(out.text).not.toContain('6. Send an SMS');
  });

  it('Ctrl-C during the tour ends it as interrupted', async () => {
    const out = transcript();
    const controller = new AbortController();
    out.on('data', () => {
      if (out.text.includes('4. Create a tenant')) controller.abort();
    });
    await expect(runTour({ runCommand: main, out, isTTY: false, columns: 100, color: false, palette: plainPalette, signal: controller.signal, timeScale: 20 })).rejects.toThrow(InterruptedError);
    expect(out.text).not.toContain('5. Provision');
  });

  it('Ctrl-C of the real process exits 130 and leaves no temporary directory behind', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'svc-demo-tmp-'));
    // On Node 22+ bin/svc.js turns on Node's compile cache, which by default lives in
    // $TMPDIR/node-compile-cache and is kept across runs on purpose: it is Node's, not the tour's,
    // so it is given a folder of its own and TMPDIR holds only what the tour makes.
    const compileCache = mkdtempSync(join(tmpdir(), 'svc-demo-compile-cache-'));
    try {
      const child = spawn(process.execPath, [BIN, 'demo'], {
        env: { PATH: process.env['PATH'], HOME: process.env['HOME'], TMPDIR: tmp, SVC_CONFIG_DIR: join(tmp, 'user-config'), NODE_COMPILE_CACHE: compileCache },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let tourDirs: string[] = [];
      const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        // The order takes 1.5 s at this pace: the tour is mid-step, after `auth login` wrote its profile.
        if (out.includes('$ svc number provision') && !child.killed) {
          tourDirs = readdirSync(tmp).filter((name) => name.startsWith('svc-demo-'));
          child.kill('SIGINT');
        }
      });
      child.stderr.resume();
      const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      clearTimeout(killer);
      expect(code, out).toBe(130);
      // The tour had made its working directory in TMPDIR when it was interrupted, and removed it.
      expect(tourDirs).toHaveLength(1);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
      rmSync(compileCache, { recursive: true, force: true });
    }
  });

  it('refuses --json, since its output is a transcript (exit 2)', async () => {
    const result = await runCli(['demo', '--json']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toMatchObject({ error: { message: expect.stringContaining('no --json') } });
  });

  it('refuses a bad --time-scale with exit 2', async () => {
    const result = await runCli(['demo', '--time-scale', 'fast']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--time-scale must be a number from 0.1 to 1000, not "fast"');
  });
});

describe('demo helpers', () => {
  it('draws a real PNG: signature, sniffed type, and pixel rows of the stated size', () => {
    const png = drawDemoPng(16);
    expect(sniffContentType(png)).toBe('image/png');
    expect(png.readUInt32BE(16)).toBe(16);
    const idatAt = png.indexOf('IDAT');
    const length = png.readUInt32BE(idatAt - 4);
    const rows = inflateSync(png.subarray(idatAt + 4, idatAt + 4 + length));
    expect(rows.length).toBe(16 * (1 + 16 * 3));
    expect(png.subarray(-8, -4).toString('latin1')).toBe('IEND');
    // The CRC of IEND (no data) is fixed by the format.
    expect(png.readUInt32BE(png.length - 4)).toBe(0xae426082);
  });

  it('quotes printed arguments only when a shell needs it', () => {
    expect(shellQuote('+15555550100')).toBe('+15555550100');
    expect(shellQuote('http://127.0.0.1:4010/')).toBe('http://127.0.0.1:4010/');
    expect(shellQuote('Hello there')).toBe("'Hello there'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });

  it('finds the message id in plain and coloured send output', () => {
    const id = '9212422c-92ea-469e-b01b-41d2a9fe895d';
    expect(messageIdIn(`to\t+15551234567\nmessageId\t${id}\n`)).toBe(id);
    expect(messageIdIn(`\u001b[2mmessageId   \u001b[22m  ${id}\n`)).toBe(id);
    expect(messageIdIn(`+15551234567\taccepted\t${id}\tqueued\n`)).toBe(id);
    expect(messageIdIn('status\tsent\n')).toBeUndefined();
  });
});
