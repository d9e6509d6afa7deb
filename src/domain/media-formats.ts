// The media formats the document lists, with their limits. Used by `svc media types`, by the
// checks before `svc send --media-file` and `svc media upload`, and by the sandbox.

export type MediaKind = 'Image' | 'Video' | 'Audio' | 'Document';

export interface MediaFormat {
  kind: MediaKind;
  extensions: readonly string[];
  contentType: string;
}

export const MEDIA_FORMATS: readonly MediaFormat[] = [
  { kind: 'Image', extensions: ['.jpg', '.jpeg'], contentType: 'image/jpeg' },
  { kind: 'Image', extensions: ['.png'], contentType: 'image/png' },
  { kind: 'Image', extensions: ['.gif'], contentType: 'image/gif' },
  { kind: 'Image', extensions: ['.webp'], contentType: 'image/webp' },
  { kind: 'Video', extensions: ['.mp4'], contentType: 'video/mp4' },
  { kind: 'Video', extensions: ['.mov'], contentType: 'video/quicktime' },
  { kind: 'Video', extensions: ['.avi'], contentType: 'video/x-msvideo' },
  { kind: 'Audio', extensions: ['.mp3'], contentType: 'audio/mpeg' },
  { kind: 'Audio', extensions: ['.wav'], contentType: 'audio/wav' },
  { kind: 'Audio', extensions: ['.aac'], contentType: 'audio/aac' },
  { kind: 'Document', extensions: ['.pdf'], contentType: 'application/pdf' },
  { kind: 'Document', extensions: ['.txt'], contentType: 'text/plain' },
  { kind: 'Document', extensions: ['.vcf'], contentType: 'text/vcard' },
];

/** 5 MB, read as 5 MiB: the larger reading, so that nothing the service takes is refused here. */
export const MAX_MEDIA_BYTES = 5 * 1024 * 1024;
export const MAX_MEDIA_TOTAL_BYTES = 5 * 1024 * 1024;
export const MAX_MEDIA_PER_MESSAGE = 10;

/** The two request shapes of the media upload, and `auto` (A, then B when A is refused). */
export type UploadShape = 'a' | 'b' | 'auto';
export const UPLOAD_SHAPES: readonly UploadShape[] = ['a', 'b', 'auto'];

/** The document's two media error texts. */
export const MEDIA_TOO_LARGE_TEXT = 'The file exceeds the maximum size of 5MB';
export function unsupportedMediaTypeText(contentType: string): string {
  return `Unsupported media type: ${contentType}`;
}

export function formatForExtension(fileName: string): MediaFormat | undefined {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return undefined;
  const ext = fileName.slice(dot).toLowerCase();
  return MEDIA_FORMATS.find((f) => f.extensions.includes(ext));
}

export function formatForContentType(contentType: string): MediaFormat | undefined {
  const bare = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return MEDIA_FORMATS.find((f) => f.contentType === bare);
}

/**
 * The content type the first bytes of a file show, for the formats that have a signature.
 * Returns undefined when the bytes say nothing (plain text, vCard, AAC without ADTS, ...).
 */
export function sniffContentType(head: Uint8Array): string | undefined {
  const at = (offset: number, ...bytes: number[]): boolean =>
    bytes.every((b, i) => head[offset + i] === b);
  const ascii = (offset: number, text: string): boolean =>
    at(offset, ...Array.from(text, (c) => c.charCodeAt(0)));
  // Programs and archives first: an .mp3 that is really a Windows program must say so.
  if (ascii(0, 'MZ')) return 'application/x-msdownload';
  if (at(0, 0x7f, 0x45, 0x4c, 0x46)) return 'application/x-executable';
  if (at(0, 0xcf, 0xfa, 0xed, 0xfe) || at(0, 0xce, 0xfa, 0xed, 0xfe) || at(0, 0xfe, 0xed, 0xfa, 0xcf) || at(0, 0xca, 0xfe, 0xba, 0xbe)) {
    return 'application/x-mach-binary';
  }
  if (ascii(0, '#!')) return 'text/x-shellscript';
  if (at(0, 0x50, 0x4b, 0x03, 0x04) || at(0, 0x50, 0x4b, 0x05, 0x06)) return 'application/zip';
  if (at(0, 0x1f, 0x8b)) return 'application/gzip';
  if (ascii(0, 'Rar!')) return 'application/vnd.rar';
  if (at(0, 0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c)) return 'application/x-7z-compressed';
  if (at(0, 0x00, 0x61, 0x73, 0x6d)) return 'application/wasm';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (ascii(0, 'GIF87a') || ascii(0, 'GIF89a')) return 'image/gif';
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'image/webp';
  if (ascii(0, 'RIFF') && ascii(8, 'WAVE')) return 'audio/wav';
  if (ascii(0, 'RIFF') && ascii(8, 'AVI ')) return 'video/x-msvideo';
  if (ascii(4, 'ftyp')) {
    if (['heic', 'heix', 'mif1', 'msf1', 'heim', 'heis'].some((brand) => ascii(8, brand))) return 'image/heic';
    if (ascii(8, 'avif') || ascii(8, 'avis')) return 'image/avif';
    if (ascii(8, 'M4A ') || ascii(8, 'M4B ')) return 'audio/mp4';
    return ascii(8, 'qt  ') ? 'video/quicktime' : 'video/mp4';
  }
  if (ascii(4, 'moov') || ascii(4, 'mdat') || ascii(4, 'wide')) return 'video/quicktime';
  if (ascii(0, '%PDF-')) return 'application/pdf';
  if (ascii(0, 'ID3') || (head[0] === 0xff && head[1] !== undefined && (head[1] & 0xe6) === 0xe2)) {
    return 'audio/mpeg';
  }
  if ((head[0] === 0xff && head[1] !== undefined && (head[1] & 0xf6) === 0xf0) || ascii(0, 'ADIF')) return 'audio/aac';
  if (ascii(0, 'BEGIN:VCARD')) return 'text/vcard';
  return undefined;
}

/**
 * Formats whose files always begin with a signature sniffContentType knows, so that content
 * without it is not that format (MP3: ID3 or an MPEG audio frame; AAC: ADTS or ADIF).
 */
export const SIGNED_CONTENT_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'video/mp4',
  'video/quicktime',
  'video/x-msvideo',
  'audio/mpeg',
  'audio/wav',
  'audio/aac',
  'application/pdf',
]);

/** MP4 and QuickTime share one container; their brands overlap, so either passes for the other. */
function sameFamily(a: string, b: string): boolean {
  const isoMedia = new Set(['video/mp4', 'video/quicktime']);
  return a === b || (isoMedia.has(a) && isoMedia.has(b));
}

/**
 * Why a file's content is not its declared type, or undefined when it is: the one check of
 * content against type, for every supported format. Signed formats need their signature; text
 * formats (plain text, vCard) must be UTF-8 text without NUL bytes, and a vCard begins with
 * BEGIN:VCARD.
 */
export function contentMismatch(bytes: Uint8Array, declared: string): string | undefined {
  const sniffed = sniffContentType(bytes.subarray(0, 64));
  if (sniffed !== undefined && !sameFamily(sniffed, declared)) return `the name says ${declared} but the content is ${sniffed}`;
  if (sniffed === undefined && SIGNED_CONTENT_TYPES.has(declared)) {
    return `the content is not ${declared} (its first bytes are not a ${declared} signature)`;
  }
  if (declared.startsWith('text/')) {
    if (bytes.includes(0)) return `the name says ${declared} but the content is binary`;
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return `the name says ${declared} but the content is not UTF-8 text`;
    }
    if (declared === 'text/vcard' && !/^\uFEFF?\s*BEGIN:VCARD/i.test(text)) return 'the content is not a vCard (it does not begin with BEGIN:VCARD)';
  }
  return undefined;
}
