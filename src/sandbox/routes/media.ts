// Media upload in both of the document's shapes, the LOA upload, and the links that serve them.

import {
  MAX_MEDIA_BYTES,
  MEDIA_TOO_LARGE_TEXT,
  formatForContentType,
  formatForExtension,
  sniffContentType,
  unsupportedMediaTypeText,
} from '../../domain/media-formats.js';
import type { ApiCall } from '../call.js';
import type { SandboxEngine } from '../engine.js';
import { ApiError, validationError } from '../errors.js';
import { requiredE164, requiredGuid, requiredString, type JsonObject } from '../fields.js';
import { parseJsonObject, sendError, sendJson } from '../http-io.js';
import { isMultipartForm, readFormFile } from '../multipart.js';
import type { MediaRecord, NumberRecord } from '../state/records.js';
import { LINK_VALIDITY_YEARS } from '../limits.js';

/** A 5 MB file as an array of byte values in JSON takes up to ~4 characters a byte. */
const MEDIA_BODY_LIMIT = 4 * MAX_MEDIA_BYTES + 64 * 1024;
const LOA_BODY_LIMIT = MAX_MEDIA_BYTES + 64 * 1024;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function unsupported(contentType: string): ApiError {
  return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', unsupportedMediaTypeText(contentType));
}

function tooLarge(): ApiError {
  return new ApiError(413, 'FILE_TOO_LARGE', MEDIA_TOO_LARGE_TEXT);
}

function decodeBase64(value: string, field: string): Buffer {
  const compact = value.replace(/\s+/g, '');
  if (compact.length % 4 === 1 || !BASE64.test(compact)) throw validationError(`${field} must be Base64`);
  return Buffer.from(compact, 'base64');
}

function decodeData(value: unknown): Buffer {
  if (typeof value === 'string') return decodeBase64(value, 'data');
  if (Array.isArray(value)) {
    if (value.length > MAX_MEDIA_BYTES) throw tooLarge();
    const bytes = Buffer.allocUnsafe(value.length);
    value.forEach((b, i) => {
      if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255) {
        throw validationError(`data[${i}] must be a byte value (0 to 255)`);
      }
      bytes[i] = b;
    });
    return bytes;
  }
  throw validationError('data is required: a Base64 string or an array of byte values');
}

/** Checks the declared type, the file name and the size; returns the canonical content type. */
function checkFormat(fileName: string, declared: string, bytes: Buffer, typeField: string): string {
  const format = formatForContentType(declared);
  if (!format) throw unsupported(declared);
  const byName = formatForExtension(fileName);
  if (!byName) throw validationError(`fileName must end in the extension of a supported format, got "${fileName}"`);
  if (byName.contentType !== format.contentType) {
    throw validationError(`fileName "${fileName}" does not match ${typeField} ${format.contentType}`);
  }
  if (bytes.length === 0) throw validationError('The file is empty');
  if (bytes.length > MAX_MEDIA_BYTES) throw tooLarge();
  return format.contentType;
}

function numberForUpload(owner: string, record: NumberRecord | undefined, label: string): NumberRecord {
  if (!record || record.owner !== owner || record.status !== 'Active') {
    throw validationError(`${label} must be an active provisioned number of yours`);
  }
  return record;
}

function expiry(engine: SandboxEngine): string {
  const at = new Date(engine.nowIso());
  at.setUTCFullYear(at.getUTCFullYear() + LINK_VALIDITY_YEARS);
  return at.toISOString();
}

function store(engine: SandboxEngine, record: Omit<MediaRecord, 'mediaId' | 'createdAt' | 'expiresAt'>): MediaRecord {
  const full: MediaRecord = { ...record, mediaId: engine.newId(), createdAt: engine.nowIso(), expiresAt: expiry(engine) };
  engine.store.media.set(full.mediaId, full);
  engine.changed({ kind: 'media', value: full });
  return full;
}

function isShapeB(body: JsonObject): boolean {
  return 'phoneNumberId' in body || 'mimeType' in body || 'content' in body;
}

export async function uploadMedia(call: ApiCall): Promise<void> {
  const body = parseJsonObject(await call.readRaw(MEDIA_BODY_LIMIT, MEDIA_TOO_LARGE_TEXT));
  const engine = call.engine;
  if (isShapeB(body)) {
    const phoneNumberId = requiredGuid(body, 'phoneNumberId');
    const fileName = requiredString(body, 'fileName');
    const mimeType = requiredString(body, 'mimeType');
    const content = requiredString(body, 'content');
    const bytes = decodeBase64(content, 'content');
    const contentType = checkFormat(fileName, mimeType, bytes, 'mimeType');
    const number = numberForUpload(call.owner, engine.store.numbersById.get(phoneNumberId.toLowerCase()), 'phoneNumberId');
    const record = store(engine, {
      kind: 'media',
      owner: call.owner,
      tenantId: number.tenantId,
      phoneNumber: number.phoneNumber,
      fileName,
      contentType,
      bytes,
    });
    await engine.persisted();
    sendJson(call.res, 201, { url: engine.mediaUrl(record), fileName, mimeType: contentType, expiresAt: record.expiresAt });
    return;
  }
  const phoneNumber = requiredE164(body, 'phoneNumber');
  const tenantId = requiredGuid(body, 'tenantId');
  const fileName = requiredString(body, 'fileName');
  const declared = requiredString(body, 'contentType');
  if (!formatForContentType(declared)) throw unsupported(declared);
  const bytes = decodeData(body['data']);
  const contentType = checkFormat(fileName, declared, bytes, 'contentType');
  const tenant = engine.ownTenant(call.owner, tenantId);
  const number = numberForUpload(call.owner, engine.store.numbers.get(phoneNumber), 'phoneNumber');
  if (number.tenantId !== tenant.tenantId) throw validationError(`phoneNumber ${phoneNumber} is not a number of tenant ${tenantId}`);
  const record = store(engine, {
    kind: 'media',
    owner: call.owner,
    tenantId: tenant.tenantId,
    phoneNumber,
    fileName,
    contentType,
    bytes,
  });
  await engine.persisted();
  sendJson(call.res, 201, { uri: engine.mediaUrl(record), fileName });
}

export async function uploadLoa(call: ApiCall): Promise<void> {
  const requestType = call.req.headers['content-type'];
  const raw = await call.readRaw(LOA_BODY_LIMIT, MEDIA_TOO_LARGE_TEXT);
  if (!isMultipartForm(requestType)) throw unsupported(requestType ?? '(none)');
  const file = await readFormFile(raw, requestType, 'file');
  if (!file) throw validationError('The form needs a `file` field holding the LOA document (PDF)');
  if (file.data.length === 0) throw validationError('The file is empty');
  if (file.data.length > MAX_MEDIA_BYTES) throw tooLarge();
  const declared = file.contentType?.split(';')[0]?.trim().toLowerCase();
  const byName = file.fileName ? formatForExtension(file.fileName) : undefined;
  const sniffed = sniffContentType(file.data.subarray(0, 16));
  // text/plain is what the form reader reports for a part sent without a type (RFC 7578 4.4).
  const generic = declared === undefined || declared === 'application/octet-stream' || declared === 'text/plain';
  if (!generic && declared !== 'application/pdf') throw unsupported(declared);
  if (file.fileName && byName?.contentType !== 'application/pdf') {
    throw unsupported(byName?.contentType ?? (file.fileName.includes('.') ? file.fileName.slice(file.fileName.lastIndexOf('.')) : file.fileName));
  }
  if (sniffed !== undefined && sniffed !== 'application/pdf') throw unsupported(sniffed);
  if (generic && !file.fileName && sniffed !== 'application/pdf') throw unsupported(declared ?? 'application/octet-stream');
  const record = store(call.engine, {
    kind: 'loa',
    owner: call.owner,
    tenantId: null,
    phoneNumber: null,
    fileName: file.fileName ?? 'loa.pdf',
    contentType: 'application/pdf',
    bytes: file.data,
  });
  await call.engine.persisted();
  sendJson(call.res, 201, { loaUrl: call.engine.mediaUrl(record) });
}

/**
 * `inline` with the name: an ASCII fallback in `filename` (a header holds only Latin-1, and a
 * name such as фото.png would make Node refuse the header) and the exact name in RFC 5987's
 * `filename*`, which every current browser and curl -J read.
 */
export function contentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const exact = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

/** GET/HEAD /media/{id}/{name}?expires=&sig=: no authentication, the signed token is the key. */
export function serveMedia(call: ApiCall<'getMedia'>): void {
  const { req, res } = call;
  const found = call.engine.verifyMediaLink(call.params.mediaId, call.query.get('expires'), call.query.get('sig'));
  if (found === undefined) {
    sendError(res, new ApiError(404, 'NOT_FOUND', 'Media was not found'));
    return;
  }
  if (found === 'forbidden') {
    sendError(res, new ApiError(403, 'FORBIDDEN', 'The media link token is missing, invalid or expired'));
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', found.contentType);
  res.setHeader('Content-Length', found.bytes.length);
  res.setHeader('Content-Disposition', contentDisposition(found.fileName));
  res.setHeader('Cache-Control', 'private, max-age=3600');
  res.end(req.method === 'HEAD' ? undefined : found.bytes);
}
