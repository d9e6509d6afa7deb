// The letter-of-authorization upload: the file checks (a PDF by name and by content, at most
// 5 MB) and the multipart/form-data body that carries it in a `file` field.

import { randomBytes } from 'node:crypto';
import { MAX_MEDIA_BYTES } from '../domain/media-formats.js';

export const MAX_LOA_BYTES = MAX_MEDIA_BYTES;
const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');

/** Why the file cannot be an LOA, or undefined when it can. */
export function loaFileProblem(fileName: string, size: number, head: Uint8Array): string | undefined {
  if (!/\.pdf$/i.test(fileName)) return `${fileName}: an LOA must be a PDF file (.pdf)`;
  if (size === 0) return `${fileName}: the file is empty`;
  if (size > MAX_LOA_BYTES) {
    return `${fileName}: the file exceeds the maximum size of 5MB (${(size / 1024 / 1024).toFixed(1)} MB)`;
  }
  if (!Buffer.from(head.subarray(0, PDF_MAGIC.length)).equals(PDF_MAGIC)) {
    return `${fileName}: not a PDF (a PDF starts with "%PDF-")`;
  }
  return undefined;
}

export interface MultipartBody {
  body: Buffer;
  contentType: string;
}

/** A file name safe inside a quoted header parameter: no quotes, backslashes or line breaks. */
function headerFileName(name: string): string {
  return name.replace(/[\r\n"\\]/g, '_');
}

/** A form with one file part. The boundary is random unless given (tests). */
export function multipartFile(field: string, fileName: string, contentType: string, bytes: Uint8Array, boundary?: string): MultipartBody {
  const mark = boundary ?? `----svc-form-${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${mark}\r\n` +
      `Content-Disposition: form-data; name="${field}"; filename="${headerFileName(fileName)}"\r\n` +
      `Content-Type: ${contentType}\r\n\r\n`,
    'utf8',
  );
  const tail = Buffer.from(`\r\n--${mark}--\r\n`, 'utf8');
  return { body: Buffer.concat([head, bytes, tail]), contentType: `multipart/form-data; boundary=${mark}` };
}

/** The link in an LOA upload answer, whichever field carries it. */
export function loaLinkOf(answer: unknown): string | undefined {
  if (typeof answer === 'string' && /^https?:\/\//.test(answer.trim())) return answer.trim();
  if (typeof answer !== 'object' || answer === null) return undefined;
  const a = answer as Record<string, unknown>;
  for (const key of ['loaUrl', 'url', 'uri', 'link', 'href', 'location', 'fileUrl']) {
    const value = a[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}
