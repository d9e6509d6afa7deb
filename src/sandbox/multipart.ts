// A small multipart/form-data reader for the LOA upload: enough for a form with a few fields and
// one file, on a body already held in memory (it is at most a few MB).

import { validationError } from './errors.js';

export interface FormPart {
  name: string;
  fileName: string | undefined;
  contentType: string | undefined;
  data: Buffer;
}

export function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType)) return undefined;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

function headerParam(header: string, name: string): string | undefined {
  const m = new RegExp(`;\\s*${name}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]+))`, 'i').exec(header);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2];
}

export function parseMultipart(body: Buffer, boundary: string): FormPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) throw validationError('The multipart body has no part');
  for (;;) {
    at += delimiter.length;
    if (body[at] === 0x2d && body[at + 1] === 0x2d) break; // closing "--"
    if (body[at] === 0x0d && body[at + 1] === 0x0a) at += 2;
    const headerEnd = body.indexOf('\r\n\r\n', at);
    if (headerEnd < 0) throw validationError('A multipart part has no header end');
    const headers = body.subarray(at, headerEnd).toString('utf8').split('\r\n');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) throw validationError('The multipart body is not terminated');
    let disposition = '';
    let contentType: string | undefined;
    for (const line of headers) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const key = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (key === 'content-disposition') disposition = value;
      else if (key === 'content-type') contentType = value;
    }
    const name = headerParam(disposition, 'name');
    if (name !== undefined) {
      parts.push({ name, fileName: headerParam(disposition, 'filename'), contentType, data: body.subarray(headerEnd + 4, next) });
    }
    at = next + 2;
  }
  return parts;
}
