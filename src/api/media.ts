import type { ApiClient } from './http.js';
import { ApiError, CliError, NotFoundError } from '../errors.js';
import { MEDIA_TOO_LARGE_TEXT, unsupportedMediaTypeText } from '../domain/media-formats.js';
import { linkExpiry } from './media-link-expiry.js';

// Media upload in the document's two request shapes, and the answer read whichever shape the
// server used. Never prints.
//   Shape A: {phoneNumber, fileName, contentType, data (Base64), tenantId} -> {uri, fileName}
//   Shape B: {phoneNumberId, fileName, mimeType, content (Base64)} -> {url, fileName, mimeType, expiresAt}

export { UPLOAD_SHAPES, type UploadShape } from '../domain/media-formats.js';
import type { UploadShape } from '../domain/media-formats.js';

export interface UploadFile {
  fileName: string;
  contentType: string;
  bytes: Uint8Array;
}

export interface UploadTarget {
  /** E.164 number the media is for. */
  number: string;
  /** Needed by shape A. */
  tenantId?: string | undefined;
}

export interface UploadedMedia {
  url: string;
  fileName: string;
  contentType: string;
  expiresAt: string | null;
}

/** Statuses with which a server says "not this shape", so that auto tries shape B. */
export const SHAPE_FALLBACK_STATUSES: readonly number[] = [400, 404, 415];

function stringOf(data: Record<string, unknown>, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = data[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** `{url, fileName, contentType, expiresAt}` from either answer shape (or a mix of them). */
export function normaliseUploadAnswer(data: unknown, file: UploadFile): UploadedMedia {
  const record = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  const url = stringOf(record, 'url', 'uri', 'link', 'mediaUrl');
  if (url === undefined) {
    throw new ApiError(`The media upload answer has no link (neither "url" nor "uri"): ${JSON.stringify(data ?? null).slice(0, 200)}`);
  }
  return {
    url,
    fileName: stringOf(record, 'fileName', 'filename', 'name') ?? file.fileName,
    contentType: stringOf(record, 'contentType', 'mimeType') ?? file.contentType,
    // The first shape has no expiry field; its link's signed token carries the expiry.
    expiresAt: stringOf(record, 'expiresAt') ?? linkExpiry(url) ?? null,
  };
}

/** The document's two media texts, whatever words the server chose for 413 and 415. */
function withMediaText(error: unknown, file: UploadFile): unknown {
  if (!(error instanceof CliError) || (error.status !== 413 && error.status !== 415)) return error;
  const text = error.status === 413 ? MEDIA_TOO_LARGE_TEXT : unsupportedMediaTypeText(file.contentType);
  const message = error.message.toLowerCase().includes(text.toLowerCase()) ? error.message : `${file.fileName}: ${text} (${error.message})`;
  return new ApiError(message, {
    status: error.status,
    ...(error.title !== undefined ? { title: error.title } : {}),
    ...(error.errorCode !== undefined ? { errorCode: error.errorCode } : {}),
    cause: error,
  });
}

export async function uploadShapeA(api: ApiClient, file: UploadFile, target: UploadTarget & { tenantId: string }): Promise<UploadedMedia> {
  const response = await api.call('uploadMedia', {
    json: {
      phoneNumber: target.number,
      fileName: file.fileName,
      contentType: file.contentType,
      data: Buffer.from(file.bytes).toString('base64'),
      tenantId: target.tenantId,
    },
  });
  return normaliseUploadAnswer(response.data, file);
}

/** The GUID of a number, which shape B names the number by. */
export async function phoneNumberIdOf(api: ApiClient, number: string): Promise<string> {
  const response = await api.call('getNumber', { params: { phoneNumber: number } });
  const data = response.data;
  const id = typeof data === 'object' && data !== null ? (data as Record<string, unknown>)['phoneNumberId'] : undefined;
  if (typeof id !== 'string' || id === '') {
    throw new ApiError(`The service shows no phoneNumberId for ${number}, which a shape B upload needs`);
  }
  return id;
}

export async function uploadShapeB(api: ApiClient, file: UploadFile, target: UploadTarget): Promise<UploadedMedia> {
  const phoneNumberId = await phoneNumberIdOf(api, target.number);
  const response = await api.call('uploadMedia', {
    json: {
      phoneNumberId,
      fileName: file.fileName,
      mimeType: file.contentType,
      content: Buffer.from(file.bytes).toString('base64'),
    },
  });
  return normaliseUploadAnswer(response.data, file);
}

/**
 * Uploads in the chosen shape; `auto` sends shape A and, when the server refuses it with 400,
 * 404 or 415, shape B. A POST is never retried once sent, so nothing is uploaded twice by us.
 */
export async function uploadMedia(
  api: ApiClient,
  file: UploadFile,
  target: UploadTarget,
  shape: UploadShape,
  onFallback?: (reason: string) => void,
): Promise<UploadedMedia> {
  try {
    if (shape === 'b') return await uploadShapeB(api, file, target);
    if (target.tenantId === undefined) throw new ApiError('A shape A media upload needs a tenant');
    const tenantId = target.tenantId;
    if (shape === 'a') return await uploadShapeA(api, file, { ...target, tenantId });
    try {
      return await uploadShapeA(api, file, { ...target, tenantId });
    } catch (error) {
      if (!(error instanceof CliError) || error.status === null || !SHAPE_FALLBACK_STATUSES.includes(error.status)) throw error;
      onFallback?.(`shape A was refused (${error.status}: ${error.message}); trying shape B`);
      try {
        return await uploadShapeB(api, file, target);
      } catch (second) {
        // The number not found while looking up shape B's id says less than shape A's refusal.
        if (second instanceof NotFoundError && error.status !== 404) throw error;
        throw second;
      }
    }
  } catch (error) {
    throw withMediaText(error, file);
  }
}
