import { basename, extname } from 'node:path';
import { UsageError } from '../errors.js';
import {
  contentMismatch,
  formatForExtension,
  MAX_MEDIA_BYTES,
  MAX_MEDIA_PER_MESSAGE,
  MAX_MEDIA_TOTAL_BYTES,
  MEDIA_TOO_LARGE_TEXT,
  sniffContentType,
  unsupportedMediaTypeText,
} from '../domain/media-formats.js';
import { isHttpsOrLoopbackUrl } from '../domain/urls.js';
import { describeSize } from '../output/size.js';
import { readInputFile } from './files.js';

// Local media files checked before anything is sent: a supported format by extension and by
// content, at most 5 MB each and 5 MB together, at most 10 media a message. Every refusal names
// the file, and an unsupported type names its MIME type (the document's own wording).

export interface MediaFile {
  path: string;
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

/** MIME types of common files we refuse, so that the refusal can name the type. */
const OTHER_TYPES: Readonly<Record<string, string>> = {
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.doc': 'application/msword',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xls': 'application/vnd.ms-excel',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.ppt': 'application/vnd.ms-powerpoint',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.csv': 'text/csv',
  '.svg': 'image/svg+xml',
  '.bmp': 'image/bmp',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.heic': 'image/heic',
  '.ico': 'image/x-icon',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
  '.ogg': 'audio/ogg',
  '.flac': 'audio/flac',
  '.m4a': 'audio/mp4',
  '.exe': 'application/octet-stream',
};

const HEAD_BYTES = 64;

/** The MIME type a refused file is named by: its content if recognised, else its extension. */
function guessedType(fileName: string, sniffed: string | undefined): string {
  if (sniffed !== undefined) return sniffed;
  const ext = extname(fileName).toLowerCase();
  return OTHER_TYPES[ext] ?? (ext === '' ? 'application/octet-stream (no extension)' : `application/octet-stream (${ext})`);
}

/** Checks a file's name, size and first bytes; reads it only when all of that passes. */
export async function readMediaFile(path: string, what = '--media-file'): Promise<MediaFile> {
  const fileName = basename(path);
  // Size and emptiness are judged before the file is read, so a huge file is refused at once.
  const bytes = await readInputFile(path, what, {
    maxBytes: MAX_MEDIA_BYTES,
    checkSize(size) {
      if (size > MAX_MEDIA_BYTES) throw new UsageError(`${path}: ${MEDIA_TOO_LARGE_TEXT} (it is ${describeSize(size)})`);
      if (size === 0) throw new UsageError(`${path}: the file is empty`);
    },
  });

  const sniffed = sniffContentType(bytes.subarray(0, HEAD_BYTES));
  const byExtension = formatForExtension(fileName);
  if (byExtension === undefined) {
    throw new UsageError(`${path}: ${unsupportedMediaTypeText(guessedType(fileName, sniffed))}`, [
      'Supported formats: `svc media types`.',
    ]);
  }
  const declared = byExtension.contentType;
  const mismatch = contentMismatch(bytes, declared);
  if (mismatch !== undefined) throw new UsageError(`${path}: ${mismatch}; rename the file or check it`);
  return { path, fileName, contentType: declared, bytes };
}

/** The rules for all media of one message: count, links, total size. */
export function checkMessageMedia(urls: readonly string[], files: readonly MediaFile[]): void {
  const count = urls.length + files.length;
  if (count > MAX_MEDIA_PER_MESSAGE) {
    throw new UsageError(`A message holds at most ${MAX_MEDIA_PER_MESSAGE} media (--media and --media-file together), not ${count}`);
  }
  for (const url of urls) {
    // The local sandbox's own media links are http:// on a loopback host (the way `svc media
    // upload` prints them there), so those pass too, as they do for the base URL.
    if (!isHttpsOrLoopbackUrl(url)) throw new UsageError(`--media takes https:// links only, not "${url}"`);
  }
  const total = files.reduce((sum, file) => sum + file.bytes.length, 0);
  if (total > MAX_MEDIA_TOTAL_BYTES) {
    throw new UsageError(
      `The media files together are ${describeSize(total)}: ${MEDIA_TOO_LARGE_TEXT} per message (${files.map((f) => f.path).join(', ')})`,
    );
  }
}
