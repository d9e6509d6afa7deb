// Request bodies and JSON answers on bare node:http, kept lean for the POST /messages hot path.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './errors.js';

/** Request bodies kept for an exchange observer (tests), for the requests it watches. */
export const observedBodies = new WeakMap<IncomingMessage, Buffer | null>();

/**
 * Reads a request body up to `limit` bytes. A larger body is drained (so that the client reads
 * our answer instead of a reset) and refused with 413.
 */
export function readBody(req: IncomingMessage, limit: number, tooLargeText: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    let tooLarge = Number.isFinite(declared) && declared > limit;
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (tooLarge) {
        reject(new ApiError(413, 'FILE_TOO_LARGE', tooLargeText));
        return;
      }
      const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      if (observedBodies.has(req)) observedBodies.set(req, raw);
      resolve(raw);
    });
    req.on('error', reject);
  });
}

/** Arrays and objects nest at most this deep in a request body (the deepest document shape is 4). */
export const MAX_JSON_DEPTH = 64;

/**
 * True when the JSON text nests arrays/objects deeper than `limit`. A byte scan (brackets outside
 * strings), so that a body nested 100,000 deep is refused before anything recurses over it.
 */
export function nestsDeeperThan(raw: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as number;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** Parses a JSON object body; invalid JSON is INVALID_JSON, anything but an object is a field error. */
export function parseJsonObject(raw: Buffer): Record<string, unknown> {
  if (raw.length === 0) throw new ApiError(400, 'INVALID_JSON', 'A JSON request body is required');
  if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) {
    throw new ApiError(400, 'INVALID_JSON', `The request body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    const detail = error instanceof Error ? `: ${error.message}` : '';
    throw new ApiError(400, 'INVALID_JSON', `The request body is not valid JSON${detail}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ApiError(400, 'VALIDATION_ERROR', 'The request body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

/** An answer already serialized. */
export function sendJsonText(res: ServerResponse, status: number, text: string, headers?: Record<string, string>): void {
  // writeHead with the headers at once: cheaper than setHeader per header on the hot path.
  const all: Record<string, string | number> = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) };
  if (headers) for (const name in headers) all[name] = headers[name] as string;
  res.writeHead(status, all);
  res.end(text);
}

/** A JSON answer serialized once and sent many times: its bytes and its header list, ready. */
export interface CachedJson {
  readonly body: Buffer;
  /** Flat [name, value, ...] list, as writeHead takes it. */
  readonly head: readonly (string | number)[];
}

export function cachedJson(text: string): CachedJson {
  const body = Buffer.from(text, 'utf8');
  return { body, head: ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', body.length] };
}

/** A cached answer: no serialisation, encoding or header object per request. */
export function sendCachedJson(res: ServerResponse, status: number, answer: CachedJson): void {
  res.writeHead(status, answer.head as (string | number)[]);
  res.end(answer.body);
}

export function sendEmpty(res: ServerResponse, status: number): void {
  res.statusCode = status;
  res.end();
}

export function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status, error.body(), error.headers);
}
