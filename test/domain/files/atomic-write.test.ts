import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileAtomic, writeFileAtomicSync } from '../../../src/domain/files/atomic-write.js';

const SOURCE = fileURLToPath(new URL('../../../src/domain/files/atomic-write.ts', import.meta.url));

let dir: string;
let bundle: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-atomic-'));
  bundle = join(dir, 'atomic.mjs');
  buildSync({ entryPoints: [SOURCE], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'silent' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs `script` with the module imported as `atomic`, under a file size limit of `blocks` 512-byte
 * blocks (RLIMIT_FSIZE, as a full disk behaves for the writer: a short write, then EFBIG).
 */
function underSizeLimit(blocks: number, script: string): Promise<{ stdout: string; code: number | null }> {
  const source = `import * as atomic from ${JSON.stringify(bundle)};\n${script}`;
  const proc = spawn('sh', ['-c', `ulimit -f ${blocks} && exec "$0" --input-type=module -e "$1"`, process.execPath, source], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => proc.on('close', (code) => resolve({ stdout, code })));
}

function siblings(name: string): string[] {
  return readdirSync(dir).filter((entry) => entry.includes(name));
}

describe('atomic writes', () => {
  it('replaces a file whole, with mode 0600, leaving nothing beside it', async () => {
    const file = join(dir, 'store.json');
    writeFileAtomicSync(file, 'first');
    expect(readFileSync(file, 'utf8')).toBe('first');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await writeFileAtomic(file, async (write) => {
      await write('sec');
      await write(Buffer.from('ond'));
    });
    expect(readFileSync(file, 'utf8')).toBe('second');
    expect(siblings('store.json')).toEqual(['store.json']);
  });

  it('under a file size limit, fails with EFBIG and keeps the old file intact (sync and async)', async () => {
    const file = join(dir, 'profiles.json');
    const old = JSON.stringify({ profiles: { a: { baseUrl: 'https://a.example', username: 'a', password: 'pa' } } });
    writeFileSync(file, old);
    const big = 'x'.repeat(4096);
    const script = `
      for (const write of [() => atomic.writeFileAtomicSync(${JSON.stringify(file)}, ${JSON.stringify(big)}), () => atomic.writeFileAtomic(${JSON.stringify(file)}, ${JSON.stringify(big)})]) {
        try { await write(); console.log('written'); } catch (error) { console.log(error.code); }
      }`;
    // 1 block: the first write of 4096 bytes is cut to 512, the next one fails.
    const result = await underSizeLimit(1, script);
    expect(result.stdout.trim().split('\n')).toEqual(['EFBIG', 'EFBIG']);
    expect(readFileSync(file, 'utf8')).toBe(old);
    expect(siblings('profiles.json')).toEqual(['profiles.json']);
  });

  it('a write within the limit succeeds under it (the limit is what fails the other)', async () => {
    const file = join(dir, 'small.json');
    const result = await underSizeLimit(1, `atomic.writeFileAtomicSync(${JSON.stringify(file)}, 'small'); console.log('ok');`);
    expect(result.stdout.trim()).toBe('ok');
    expect(readFileSync(file, 'utf8')).toBe('small');
  });

  it('a failure in the content callback keeps the old file and removes the temporary one', async () => {
    const file = join(dir, 'snapshot.json');
    writeFileSync(file, 'old');
    await expect(
      writeFileAtomic(file, async (write) => {
        await write('partial');
        throw new Error('stopped');
      }),
    ).rejects.toThrow('stopped');
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(siblings('snapshot.json')).toEqual(['snapshot.json']);
  });
});
