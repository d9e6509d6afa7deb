import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, spawnCli } from '../helpers/spawn.js';
import { EXCHANGE_LOG_ENV } from '../../src/sandbox/exchange-log.js';
import { exchangeLogObserver } from '../../src/commands/sandbox/exchange-log.js';
import type { HttpExchange } from '../../src/sandbox/observe.js';
import { FileUsageError, FileWriteError } from '../../src/input/file-errors.js';

// The sandbox's exchange log under the file rule for writes: a log that cannot be created is
// refused before the sandbox listens (exit 2), one that cannot be written later stops it with
// exit 1 naming the file, after answering the request it could not record.

const dir = mkdtempSync(join(tmpdir(), 'svc-exchange-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const exchange: HttpExchange = {
  method: 'GET',
  url: '/api/v1/health',
  requestHeaders: {},
  requestBody: null,
  status: 200,
  responseHeaders: {},
  responseBody: Buffer.from('{}'),
};

describe('the exchange log', () => {
  it('refuses a log it cannot create, naming it and why, before anything is served', async () => {
    const missing = join(dir, 'no-such-dir', 'log.jsonl');
    const observer = () => exchangeLogObserver({ [EXCHANGE_LOG_ENV]: missing }, 'hint', () => undefined);
    expect(observer).toThrow(FileUsageError);
    expect(observer).toThrow(`Cannot write the exchange log (${EXCHANGE_LOG_ENV}) ${missing}: its directory does not exist`);
    expect(exchangeLogObserver({}, 'hint', () => undefined)).toBeUndefined();
    const result = await spawnCli(['sandbox', 'start', '--port', '0'], { env: { [EXCHANGE_LOG_ENV]: dir } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Cannot write the exchange log (${EXCHANGE_LOG_ENV}) ${dir}: it is a directory`);
    expect(result.stderr).not.toContain('Sandbox running');
  });

  it('hands the first failed write to the command, once, and writes nothing after it', () => {
    const file = join(dir, 'once.jsonl');
    const failures: Error[] = [];
    const write = exchangeLogObserver({ [EXCHANGE_LOG_ENV]: file }, 'what the command did', (error) => failures.push(error))!;
    write(exchange);
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(2);
    // The file replaced by a directory: the next append fails.
    rmSync(file);
    mkdirSync(file);
    write(exchange);
    write(exchange);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(FileWriteError);
    expect(failures[0]!.message).toBe(`Cannot write the exchange log (${EXCHANGE_LOG_ENV}) ${file}: it is a directory, not a file`);
    expect((failures[0] as FileWriteError).hints).toContain('what the command did');
  });

  it('stops the sandbox with exit 1 naming the log when a write fails (RLIMIT_FSIZE, as a full disk)', async () => {
    const log = join(dir, 'full.jsonl');
    // 1 block of 512 bytes: the first logged answer (the OpenAPI document) does not fit.
    const child = spawn('/bin/sh', ['-c', 'ulimit -f 1 && exec "$0" "$@"', process.execPath, BIN, 'sandbox', 'start', '--port', '0', '--json'], {
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', SVC_DATA_DIR: dir, [EXCHANGE_LOG_ENV]: log },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const deadline = setTimeout(() => child.kill('SIGKILL'), 60_000);
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const api = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString('utf8');
          try {
            resolve((JSON.parse(out) as { apiUrl: string }).apiUrl);
          } catch {
            // Not all of it yet.
          }
        });
        void exited.then(() => reject(new Error(`the sandbox exited before listening: ${err}`)));
      });
      // The request that could not be recorded is still answered.
      const answer = await fetch(`${api}/openapi.json`);
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { openapi: string }).openapi).toMatch(/^3\./);
      const code = await exited;
      expect(err).toContain(`Cannot write the exchange log (${EXCHANGE_LOG_ENV}) ${log}: the file would grow past the size this process may write`);
      expect(err).toContain('The sandbox stopped rather than answer requests it could no longer record.');
      expect(err).toContain('Sandbox stopped.');
      expect(err).not.toContain('Unexpected error');
      expect(code).toBe(1);
    } finally {
      clearTimeout(deadline);
      child.kill('SIGKILL');
    }
  });
});
