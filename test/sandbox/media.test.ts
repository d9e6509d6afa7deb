import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AUTH, OTHER_AUTH, createTenant, obj, provisionAndWait, startHarness, type Harness } from './helpers.js';

let h: Harness;
let tenantId: string;
let phoneNumberId: string;
const NUMBER = '+14155550300';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
const FIVE_MB = 5 * 1024 * 1024;

beforeAll(async () => {
  h = await startHarness();
  tenantId = await createTenant(h);
  await provisionAndWait(h, tenantId, [NUMBER]);
  phoneNumberId = obj(await h.api('GET', `/phone-numbers/${encodeURIComponent(NUMBER)}`))['phoneNumberId'] as string;
});
afterAll(async () => {
  await h.close();
});

async function fetchLink(link: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(link);
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('media upload, shape A', () => {
  it('takes Base64 data and answers {uri, fileName}; the link serves the bytes without auth', async () => {
    const answer = await h.api('POST', '/media', { phoneNumber: NUMBER, fileName: 'logo.png', contentType: 'image/png', data: PNG.toString('base64'), tenantId });
    expect(answer.status).toBe(201);
    const body = obj(answer);
    expect(Object.keys(body).sort()).toEqual(['fileName', 'uri']);
    expect(body['fileName']).toBe('logo.png');
    const uri = body['uri'] as string;
    expect(uri.startsWith(`${h.sandbox.url}/media/`)).toBe(true);
    expect(new URL(uri).searchParams.get('sig')).toEqual(expect.any(String));
    // 99 years of validity.
    const expires = Number(new URL(uri).searchParams.get('expires')) * 1000;
    expect(new Date(expires).getUTCFullYear() - new Date().getUTCFullYear()).toBe(99);
    const served = await fetchLink(uri);
    expect(served.status).toBe(200);
    expect(served.type).toBe('image/png');
    expect(served.bytes.equals(PNG)).toBe(true);
  });

  it('takes data as an array of byte values', async () => {
    const answer = await h.api('POST', '/media', { phoneNumber: NUMBER, fileName: 'a.jpg', contentType: 'image/jpeg', data: [0xff, 0xd8, 0xff, 0, 255], tenantId });
    expect(answer.status).toBe(201);
    const served = await fetchLink(obj(answer)['uri'] as string);
    expect([...served.bytes]).toEqual([0xff, 0xd8, 0xff, 0, 255]);
    expect(served.type).toBe('image/jpeg');
  });

  it('refuses a link with a missing or forged token (403) and an unknown id (404)', async () => {
    const uri = obj(await h.api('POST', '/media', { phoneNumber: NUMBER, fileName: 'b.gif', contentType: 'image/gif', data: 'R0lGODlh', tenantId }))['uri'] as string;
    const url = new URL(uri);
    const bare = `${url.origin}${url.pathname}`;
    expect((await fetchLink(bare)).status).toBe(403);
    expect((await fetchLink(`${bare}?expires=${url.searchParams.get('expires') ?? ''}&sig=AAAA`)).status).toBe(403);
    const later = String(Number(url.searchParams.get('expires')) + 1);
    expect((await fetchLink(`${bare}?expires=${later}&sig=${url.searchParams.get('sig') ?? ''}`)).status).toBe(403);
    expect((await fetchLink(`${h.sandbox.url}/media/00000000-0000-4000-8000-000000000000/x.png${url.search}`)).status).toBe(404);
  });

  it('refuses unsupported types with 415, too large files with 413, with the document’s texts', async () => {
    const unsupported = await h.api('POST', '/media', { phoneNumber: NUMBER, fileName: 'a.bmp', contentType: 'image/bmp', data: 'AAAA', tenantId });
    expect(unsupported.status).toBe(415);
    expect(obj(unsupported)).toMatchObject({ errorCode: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported media type: image/bmp' });

    const big = Buffer.alloc(FIVE_MB + 1, 1).toString('base64');
    const tooLarge = await h.api('POST', '/media', { phoneNumber: NUMBER, fileName: 'big.png', contentType: 'image/png', data: big, tenantId });
    expect(tooLarge.status).toBe(413);
    expect(obj(tooLarge)).toMatchObject({ errorCode: 'FILE_TOO_LARGE', message: 'The file exceeds the maximum size of 5MB' });
    const exact = Buffer.alloc(FIVE_MB, 1).toString('base64');
    expect((await h.api('POST', '/media', { phoneNumber: NUMBER, fileName: 'max.png', contentType: 'image/png', data: exact, tenantId })).status).toBe(201);
  });

  it('validates the other fields', async () => {
    const good = { phoneNumber: NUMBER, fileName: 'a.png', contentType: 'image/png', data: 'AAAA', tenantId };
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ ...good, phoneNumber: '123' }, 400, /phoneNumber must be an E\.164/],
      [{ ...good, phoneNumber: '+14155550399' }, 400, /active provisioned number/],
      [{ ...good, tenantId: 'x' }, 400, /tenantId must be a GUID/],
      [{ ...good, fileName: undefined }, 400, /fileName is required/],
      [{ ...good, fileName: 'a.jpg' }, 400, /does not match/],
      [{ ...good, fileName: 'noext' }, 400, /extension/],
      [{ ...good, data: 'not base64!' }, 400, /data must be Base64/],
      [{ ...good, data: [1, 256] }, 400, /data\[1\] must be a byte value/],
      [{ ...good, data: undefined }, 400, /data is required/],
      [{ ...good, data: '' }, 400, /empty/],
      [{ ...good, tenantId: '00000000-0000-4000-8000-000000000000' }, 404, /not found/],
    ];
    for (const [body, status, message] of cases) {
      const answer = await h.api('POST', '/media', body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(obj(answer)['message']).toMatch(message);
    }
    const other = await createTenant(h);
    const mismatch = await h.api('POST', '/media', { ...good, tenantId: other });
    expect(mismatch.status).toBe(400);
    expect((await h.api('POST', '/media', good, { auth: OTHER_AUTH })).status).toBe(404);
  });
});

describe('media upload, shape B', () => {
  it('answers {url, fileName, mimeType, expiresAt} and the link serves the bytes', async () => {
    const answer = await h.api('POST', '/media', { phoneNumberId, fileName: 'note.txt', mimeType: 'text/plain', content: Buffer.from('hello').toString('base64') });
    expect(answer.status).toBe(201);
    const body = obj(answer);
    expect(Object.keys(body).sort()).toEqual(['expiresAt', 'fileName', 'mimeType', 'url']);
    expect(body).toMatchObject({ fileName: 'note.txt', mimeType: 'text/plain' });
    expect(Date.parse(body['expiresAt'] as string)).toBeGreaterThan(Date.now());
    const served = await fetchLink(body['url'] as string);
    expect(served.bytes.toString()).toBe('hello');
    expect(served.type).toBe('text/plain');
  });

  it('validates shape B fields', async () => {
    const good = { phoneNumberId, fileName: 'a.png', mimeType: 'image/png', content: 'AAAA' };
    expect((await h.api('POST', '/media', { ...good, phoneNumberId: 'x' })).status).toBe(400);
    expect((await h.api('POST', '/media', { ...good, phoneNumberId: '00000000-0000-4000-8000-000000000000' })).status).toBe(400);
    expect((await h.api('POST', '/media', { ...good, mimeType: 'application/zip', fileName: 'a.zip' })).status).toBe(415);
    expect((await h.api('POST', '/media', { ...good, content: undefined })).status).toBe(400);
  });

  it('lets a message use a sandbox-hosted link, and caps the total media size of a message', async () => {
    const url = obj(await h.api('POST', '/media', { phoneNumberId, fileName: 'a.png', mimeType: 'image/png', content: PNG.toString('base64') }))['url'] as string;
    const send = await h.api('POST', '/messages?isAsync=true', { from: NUMBER, to: ['+14155559100'], body: 'pic', mediaUrls: [url] });
    expect(send.status).toBe(202);
    const half = Buffer.alloc(3 * 1024 * 1024, 2).toString('base64');
    const big1 = obj(await h.api('POST', '/media', { phoneNumberId, fileName: 'b.png', mimeType: 'image/png', content: half }))['url'] as string;
    const big2 = obj(await h.api('POST', '/media', { phoneNumberId, fileName: 'c.png', mimeType: 'image/png', content: half }))['url'] as string;
    const tooMuch = await h.api('POST', '/messages?isAsync=true', { from: NUMBER, to: ['+14155559100'], body: 'pics', mediaUrls: [big1, big2] });
    expect(tooMuch.status).toBe(413);
    expect(obj(tooMuch)['errorCode']).toBe('FILE_TOO_LARGE');
  });
});

describe('LOA upload', () => {
  async function upload(parts: (form: FormData) => void, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const form = new FormData();
    parts(form);
    const res = await fetch(`${h.sandbox.apiUrl}/phone-numbers/loa`, { method: 'POST', headers: { Authorization: DEFAULT_AUTH, ...headers }, body: form });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  const pdf = Buffer.from('%PDF-1.4\n% letter of authorization\n%%EOF\n');

  it('takes a PDF in the `file` field and answers {loaUrl}, a link that serves it', async () => {
    const answer = await upload((f) => f.append('file', new Blob([pdf], { type: 'application/pdf' }), 'loa.pdf'));
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.body)).toEqual(['loaUrl']);
    const served = await fetchLink(answer.body['loaUrl'] as string);
    expect(served.type).toBe('application/pdf');
    expect(served.bytes.equals(pdf)).toBe(true);
  });

  it('refuses anything but a PDF (415), a file over 5 MB (413), a missing file field (400), a non-multipart body (415)', async () => {
    const png = await upload((f) => f.append('file', new Blob([PNG], { type: 'image/png' }), 'x.png'));
    expect(png.status).toBe(415);
    expect(png.body['message']).toBe('Unsupported media type: image/png');
    const disguised = await upload((f) => f.append('file', new Blob([PNG], { type: 'application/pdf' }), 'x.pdf'));
    expect(disguised.status).toBe(415);
    const big = Buffer.concat([pdf, Buffer.alloc(FIVE_MB, 0x20)]);
    const tooLarge = await upload((f) => f.append('file', new Blob([big], { type: 'application/pdf' }), 'big.pdf'));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body['message']).toBe('The file exceeds the maximum size of 5MB');
    const noFile = await upload((f) => f.append('document', new Blob([pdf], { type: 'application/pdf' }), 'loa.pdf'));
    expect(noFile.status).toBe(400);
    const json = await h.api('POST', '/phone-numbers/loa', { file: 'x' });
    expect(json.status).toBe(415);
    expect(obj(json)['errorCode']).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('takes a PDF part sent without a Content-Type, and answers 400 for a broken form', async () => {
    const post = async (body: Buffer): Promise<{ status: number; body: Record<string, unknown> }> => {
      const res = await fetch(`${h.sandbox.apiUrl}/phone-numbers/loa`, {
        method: 'POST',
        headers: { Authorization: DEFAULT_AUTH, 'content-type': 'multipart/form-data; boundary=b' },
        body,
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const head = Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="loa.pdf"\r\n\r\n');
    const untyped = await post(Buffer.concat([head, pdf, Buffer.from('\r\n--b--\r\n')]));
    expect(untyped.status).toBe(201);
    const broken = await post(Buffer.concat([head, pdf]));
    expect(broken.status).toBe(400);
    expect(broken.body['errorCode']).toBe('VALIDATION_ERROR');
  });
});
