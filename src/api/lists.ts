import { ApiError } from '../errors.js';
import { firstLine, type ApiResponse } from './http.js';

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

/**
 * The list of an answer. A body that is not JSON at all (an HTML page served for every path by
 * a wrong base URL) is an unexpected answer, not an empty list: `auth login` would otherwise
 * accept any web site as the service.
 */
export function listBody(response: ApiResponse, what: string): ListPage {
  if (response.data === undefined && response.text.trim() !== '') {
    throw new ApiError(`Unexpected answer for ${what}: HTTP ${response.status} with "${firstLine(response.text)}", not JSON`, { status: response.status });
  }
  return unwrapList(response.data);
}
