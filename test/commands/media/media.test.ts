import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { createMockApi, MOCK_ENV, type MockApi } from '../../helpers/mock-api.js';

const NUMBER = '+15551230000';
const NUMBER_ID = '9b2c1a3e-0f3a-4c55-8e2d-7a1b2c3d4e5f';
const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);

const dir = mkdtempSync(join(tmpdir(), 'svc-media-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string | Buffer): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

let mock: MockApi;
afterEach(async () => {
  await mock.agent.close();
});
const run = (argv: string[]) => runCli(argv, { env: { ...MOCK_ENV }, dispatcher: mock.agent });

const shapeA = { phoneNumber: NUMBER, fileName: 'photo.png', contentType: 'image/png', data: PNG.toString('base64'), tenantId: TENANT };
const shapeB = { phoneNumberId: NUMBER_ID, fileName: 'photo.png', mimeType: 'image/png', content: PNG.toString('base64') };

describe('svc media upload', () => {
  it('sends shape A by default and normalises its answer', async () => {
    mock = createMockApi();
    const png = file('photo.png', PNG);
    mock.expect('POST', 'media', { status: 201, body: { uri: 'https://media.test/a?sig=x', fileName: 'photo.png' } }, { body: (b) => expect(b).toEqual(shapeA) });
    const result = await run(['media', 'upload', png, '--number', NUMBER, '--tenant', TENANT, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ url: 'https://media.test/a?sig=x', fileName: 'photo.png', contentType: 'image/png', expiresAt: null });
    mock.verify();
  });

  it('takes the expiry of a shape A answer from its link\'s signed token', async () => {
    mock = createMockApi();
    const png = file('photo.png', PNG);
    const link = 'https://media.test/m/1/photo.png?expires=4102444800&sig=x';
    mock.expect('POST', 'media', { status: 201, body: { uri: link, fileName: 'photo.png' } }, { body: (b) => expect(b).toEqual(shapeA) });
    const result = await run(['media', 'upload', png, '--number', NUMBER, '--tenant', TENANT, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ url: link, fileName: 'photo.png', contentType: 'image/png', expiresAt: '2100-01-01T00:00:00.000Z' });
    mock.verify();
  });

  it('sends shape B with the number\'s id, read first', async () => {
    mock = createMockApi();
    const png = file('photo.png', PNG);
    mock.expect('GET', 'phone-numbers/%2B15551230000', { status: 200, body: { phoneNumberId: NUMBER_ID, phoneNumber: NUMBER } });
    mock.expect('POST', 'media', { status: 201, body: { url: 'https://media.test/b', fileName: 'photo.png', mimeType: 'image/png', expiresAt: '2125-01-01T00:00:00Z' } }, { body: (b) => expect(b).toEqual(shapeB) });
    const result = await run(['media', 'upload', png, '--number', NUMBER, '--shape', 'B', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ url: 'https://media.test/b', fileName: 'photo.png', contentType: 'image/png', expiresAt: '2125-01-01T00:00:00Z' });
    mock.verify();
  });

  it.each([400, 404, 415])('auto falls back to shape B when shape A is refused with %i', async (status) => {
    mock = createMockApi();
    const png = file('photo.png', PNG);
    mock.expect('POST', 'media', { status, body: { message: 'unknown field data' } }, { body: (b) => expect(b).toEqual(shapeA) });
    mock.expect('GET', 'phone-numbers/%2B15551230000', { status: 200, body: { phoneNumberId: NUMBER_ID } });
    mock.expect('POST', 'media', { status: 201, body: { url: 'https://media.test/b', fileName: 'photo.png', mimeType: 'image/png', expiresAt: '2125-01-01T00:00:00Z' } }, { body: (b) => expect(b).toEqual(shapeB) });
    const result = await run(['media', 'upload', png, '--number', NUMBER, '--tenant', TENANT, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).url).toBe('https://media.test/b');
    mock.verify();
  });

  it('does not fall back on other errors, and --shape a never tries B', async () => {
    mock = createMockApi();
    const png = file('photo.png', PNG);
    mock.expect('POST', 'media', { status: 500, body: { message: 'down' } });
    expect((await run(['media', 'upload', png, '--number', NUMBER, '--tenant', TENANT])).code).toBe(1);
    mock.expect('POST', 'media', { status: 400, body: { message: 'bad' } });
    expect((await run(['media', 'upload', png, '--number', NUMBER, '--tenant', TENANT, '--shape', 'a'])).code).toBe(1);
    expect(mock.seen.map((s) => s.method)).toEqual(['POST', 'POST']);
  });

  it('shows the document\'s media texts for 413 and 415 answers', async () => {
    mock = createMockApi();
    const png = file('photo.png', PNG);
    mock.expect('POST', 'media', { status: 413, body: { message: 'too big', errorCode: 'FILE_TOO_LARGE' } });
    const big = await run(['media', 'upload', png, '--number', NUMBER, '--tenant', TENANT, '--shape', 'a']);
    expect(big.code).toBe(1);
    expect(big.stderr).toContain('photo.png: The file exceeds the maximum size of 5MB');
    mock.expect('GET', 'phone-numbers/%2B15551230000', { status: 200, body: { phoneNumberId: NUMBER_ID } });
    mock.expect('POST', 'media', { status: 415, body: 'nope' });
    const unsupported = await run(['media', 'upload', png, '--number', NUMBER, '--shape', 'b', '--json']);
    expect(unsupported.code).toBe(1);
    expect(JSON.parse(unsupported.stderr).error).toMatchObject({ status: 415, message: expect.stringContaining('Unsupported media type: image/png') });
  });

  it('checks the file, the number and the tenant before any request', async () => {
    mock = createMockApi();
    const png = file('photo.png', PNG);
    const fake = file('fake.gif', 'GIF? no');
    const vcard = file('card.vcf', 'BEGIN:VCARD\nEND:VCARD\n');
    expect((await run(['media', 'upload', png, '--number', '555'])).stderr).toContain('--number "555" is not an E.164');
    expect((await run(['media', 'upload', png])).stderr).toContain('--number is needed');
    expect((await run(['media', 'upload', png, '--number', NUMBER])).stderr).toMatch(/The tenant of the upload is missing: give --tenant GUID or set SVC_TENANT[\s\S]*svc tenant use GUID/);
    expect((await run(['media', 'upload', fake, '--number', NUMBER, '--tenant', TENANT])).stderr).toContain('fake.gif: the content is not image/gif');
    expect((await run(['media', 'upload', join(dir, 'missing.png'), '--number', NUMBER, '--tenant', TENANT])).stderr).toContain('no such file');
    expect((await run(['media', 'upload', png, '--number', NUMBER, '--shape', 'c'])).code).toBe(2);
    expect(mock.seen).toHaveLength(0);
    mock.expect('POST', 'media', { status: 201, body: { uri: 'https://m/v', fileName: 'card.vcf' } }, { body: (b) => expect(b).toMatchObject({ contentType: 'text/vcard' }) });
    expect((await run(['media', 'upload', vcard, '--number', NUMBER, '--tenant', TENANT])).code).toBe(0);
  });
});

describe('svc media types', () => {
  it('prints the formats and limits as a JSON array', async () => {
    mock = createMockApi();
    const result = await run(['media', 'types', '--json']);
    const rows = JSON.parse(result.stdout) as { kind: string; extensions: string[]; contentType: string; maxBytes: number }[];
    expect(rows).toHaveLength(13);
    expect(rows[0]).toEqual({ kind: 'Image', extensions: ['.jpg', '.jpeg'], contentType: 'image/jpeg', maxBytes: 5 * 1024 * 1024, maxTotalBytes: 5 * 1024 * 1024, maxPerMessage: 10 });
    expect(rows.map((r) => r.contentType)).toContain('text/vcard');
  });
  it('prints a table with the limits on a terminal', async () => {
    mock = createMockApi();
    const result = await runCli(['media', 'types'], { tty: true, env: { NO_COLOR: '1' } });
    expect(result.stdout).toMatch(/KIND\s+EXTENSIONS\s+MIME TYPE\s+MAX SIZE/);
    expect(result.stdout).toContain('video/quicktime');
    expect(result.stdout).toContain('At most 10 media per message');
  });
});
