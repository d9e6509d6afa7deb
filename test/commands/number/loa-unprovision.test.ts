import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { createMockApi, MOCK_ENV } from '../../helpers/mock-api.js';
import { fileDir, order, TENANT } from './helpers.js';
import { multipartFile } from '../../../src/numbers/loa.js';

const env = { ...MOCK_ENV, SVC_TENANT: TENANT };
const files = fileDir('svc-loa-');
afterAll(() => files.cleanup());
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n', 'latin1');

describe('svc number loa upload', () => {
  it('sends a multipart form with the PDF in a `file` field and prints the link', async () => {
    const path = files.write('signed "loa".pdf', PDF);
    const api = createMockApi();
    api.expect('POST', 'phone-numbers/loa', { status: 201, body: { loaUrl: 'https://media.example/loa/1.pdf?sig=abc' } });
    const result = await runCli(['number', 'loa', 'upload', path], { env, dispatcher: api.agent });
    expect(result.code).toBe(0);
    api.verify();
    expect(result.stdout).toBe('https://media.example/loa/1.pdf?sig=abc\n');
    const { headers, body } = api.seen[0]!;
    expect(headers['content-type']).toMatch(/^multipart\/form-data; boundary=\S+$/);
    // Read back by the platform's own parser, as a server would.
    const form = await new Response(body as string, { headers: { 'content-type': headers['content-type']! } }).formData();
    expect([...form.keys()]).toEqual(['file']);
    const file = form.get('file') as File;
    expect(file.type).toBe('application/pdf');
    // Quotes in the name travel escaped (%22, as the HTML standard says) and come back whole.
    expect(body).toContain('filename="signed %22loa%22.pdf"');
    expect(file.name).toBe('signed "loa".pdf');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PDF);
  });

  it('prints the server answer with --json, and finds the link under other names', async () => {
    const path = files.write('loa.pdf', PDF);
    const api = createMockApi();
    api.expect('POST', 'phone-numbers/loa', { status: 200, body: { url: 'https://media.example/2.pdf', id: 2 } }, { times: 2 });
    expect(JSON.parse((await runCli(['number', 'loa', 'upload', path, '--json'], { env, dispatcher: api.agent })).stdout)).toEqual({ url: 'https://media.example/2.pdf', id: 2 });
    expect((await runCli(['number', 'loa', 'upload', path], { env, dispatcher: api.agent })).stdout).toBe('https://media.example/2.pdf\n');
  });

  it('refuses before sending: not .pdf, not a PDF inside, empty, over 5 MB, missing', async () => {
    const api = createMockApi();
    const cases: [string, string][] = [
      [files.write('loa.txt', PDF), 'an LOA must be a PDF file (.pdf)'],
      [files.write('fake.pdf', 'GIF89a not a pdf'), 'not a PDF (a PDF starts with "%PDF-")'],
      [files.write('empty.pdf', ''), 'the file is empty'],
      [files.write('big.pdf', Buffer.concat([PDF, Buffer.alloc(5 * 1024 * 1024)])), 'the file exceeds the maximum size of 5MB'],
      ['/nonexistent/loa.pdf', 'no such file'],
    ];
    for (const [path, message] of cases) {
      const result = await runCli(['number', 'loa', 'upload', path], { env, dispatcher: api.agent });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
    }
    expect(api.seen).toEqual([]);
  });

  it('builds a body that keeps binary bytes exactly', async () => {
    const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x00, 0xff, 0x0d, 0x0a, 0x2d, 0x2d]);
    const built = await multipartFile('file', 'a.pdf', 'application/pdf', bytes);
    expect(built.contentType).toMatch(/^multipart\/form-data; boundary=\S+$/);
    const form = await new Response(built.body, { headers: { 'content-type': built.contentType } }).formData();
    const file = form.get('file') as File;
    expect(file.name).toBe('a.pdf');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(bytes);
  });
});

describe('svc number unprovision', () => {
  it('sends an Unprovision request with one {number} per entry', async () => {
    const api = createMockApi();
    api.expect('POST', 'phone-numbers/provision', { status: 202, body: { ...order('Pending', [['+15551230001', 'Pending']]), action: 'Unprovision' } });
    const result = await runCli(['number', 'unprovision', '+15551230001', '+15551230002', '--json', '--yes'], { env, dispatcher: api.agent });
    expect(result.code).toBe(0);
    expect(api.seen[0]!.body).toEqual({ action: 'Unprovision', tenantId: TENANT, phoneNumbers: [{ number: '+15551230001' }, { number: '+15551230002' }] });
    expect(JSON.parse(result.stdout)).toMatchObject({ orderId: 42, action: 'Unprovision' });
  });

  it('refuses bad and repeated numbers and a missing tenant before sending', async () => {
    const api = createMockApi();
    const bad = await runCli(['number', 'unprovision', '+1555'], { env, dispatcher: api.agent });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"+1555" is not an E.164 number');
    const twice = await runCli(['number', 'unprovision', '+15551230001', '+15551230001'], { env, dispatcher: api.agent });
    expect(twice.stderr).toContain('+15551230001 is listed twice');
    const noTenant = await runCli(['number', 'unprovision', '+15551230001'], { env: { ...env, SVC_TENANT: '' }, dispatcher: api.agent });
    expect(noTenant.stderr).toContain('The tenant is missing: give --tenant GUID or set SVC_TENANT');
    expect(noTenant.stderr).toContain('svc tenant use GUID');
    expect(api.seen).toEqual([]);
  });

  it('follows the order with --wait until the numbers are Released', async () => {
    const api = createMockApi();
    api.expect('POST', 'phone-numbers/provision', { status: 202, body: order('Pending', [['+15551230001', 'Pending']]) });
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: order('Completed', [['+15551230001', 'Released']]) });
    const { fakeClock } = await import('../../helpers/cli.js');
    const result = await runCli(['number', 'unprovision', '+15551230001', '--wait', '-y'], { env, dispatcher: api.agent, clock: fakeClock() });
    expect(result.code).toBe(0);
    api.verify();
    expect(result.stdout).toMatch(/^\+15551230001\tReleased\t/);
  });
});
