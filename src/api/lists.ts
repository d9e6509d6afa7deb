import type { ApiResponse } from './http.js';

// Tolerant reading of list answers: a bare array, or an array inside whatever envelope.

const ENVELOPE_KEYS = ['items', 'data', 'results', 'value', 'values', 'records', 'tenants', 'phoneNumbers', 'numbers', 'orders', 'messages', 'content', 'list'];

export interface ListPage {
  items: unknown[];
  /** The envelope's other fields (page, limit, total, next links...), when there was one. */
  meta: Record<string, unknown>;
}

export function unwrapList(data: unknown): ListPage {
  if (data === undefined || data === null) return { items: [], meta: {} };
  if (Array.isArray(data)) return { items: data, meta: {} };
  if (typeof data !== 'object') return { items: [data], meta: {} };
  const record = data as Record<string, unknown>;
  const key =
    ENVELOPE_KEYS.find((k) => Array.isArray(record[k])) ??
    Object.keys(record).find((k) => Array.isArray(record[k]));
  if (key === undefined) return { items: [], meta: record };
  const { [key]: items, ...meta } = record;
  return { items: items as unknown[], meta };
}

/** The list of an answer whose call promises one (answers.ts has checked it is there). */
export function listBody(response: ApiResponse): ListPage {
  return unwrapList(response.data);
}
