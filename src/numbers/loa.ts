// The letter-of-authorization upload: the file checks (a PDF by name and by content, at most
// 5 MB) and the multipart/form-data body that carries it in a `file` field.

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
  body: Uint8Array;
  /** multipart/form-data with the boundary the body uses. */
  contentType: string;
}

/**
 * A form with one file part, encoded by the platform (FormData, and Response to serialise it
 * as fetch would: the boundary, and the file name escaped as the HTML standard says). The bytes
 * are then sent by the API layer like any other body.
 */
export async function multipartFile(field: string, fileName: string, contentType: string, bytes: Uint8Array): Promise<MultipartBody> {
  const form = new FormData();
  form.append(field, new Blob([bytes], { type: contentType }), fileName);
  const encoded = new Response(form);
  const type = encoded.headers.get('content-type');
  if (type === null) throw new Error('FormData gave no content type');
  return { body: new Uint8Array(await encoded.arrayBuffer()), contentType: type };
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
