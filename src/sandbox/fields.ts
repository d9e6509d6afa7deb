// Field readers for request bodies: each names the field in its 400 message.

import { isE164, isGuid } from '../domain/api/patterns.js';
import { MAX_MEDIA_PER_MESSAGE } from '../domain/media-formats.js';
import { isHttpsOrLoopbackUrl } from '../domain/urls.js';
import { validationError } from './errors.js';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function optionalString(body: JsonObject, field: string, label = field): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw validationError(`${label} must be a string`);
  return value;
}

export function requiredString(body: JsonObject, field: string, label = field): string {
  const value = optionalString(body, field, label);
  if (value === undefined || value.trim() === '') throw validationError(`${label} is required`);
  return value;
}

export function optionalBoolean(body: JsonObject, field: string, label = field): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw validationError(`${label} must be true or false`);
  return value;
}

export function requiredE164(body: JsonObject, field: string, label = field): string {
  const value = requiredString(body, field, label);
  if (!isE164(value)) throw validationError(`${label} must be an E.164 number (+ then 8 to 15 digits), got "${value}"`);
  return value;
}

export function requiredGuid(body: JsonObject, field: string, label = field): string {
  const value = requiredString(body, field, label);
  if (!isGuid(value)) throw validationError(`${label} must be a GUID, got "${value}"`);
  return value;
}

/** Enumerations take the document's spelling exactly; the message lists the values. */
export function optionalEnum<T extends string>(
  body: JsonObject,
  field: string,
  values: readonly T[],
  label = field,
): T | undefined {
  const value = optionalString(body, field, label);
  if (value === undefined) return undefined;
  if (!(values as readonly string[]).includes(value)) {
    throw validationError(`${label} must be one of ${values.join(', ')}, got "${value}"`);
  }
  return value as T;
}

export function requiredEnum<T extends string>(body: JsonObject, field: string, values: readonly T[], label = field): T {
  const value = optionalEnum(body, field, values, label);
  if (value === undefined) throw validationError(`${label} is required (one of ${values.join(', ')})`);
  return value;
}

/** Media links of a message or an inbound simulation: at most 10, each https (or loopback http). */
export function optionalMediaUrls(body: JsonObject, field = 'mediaUrls'): string[] {
  const value = body[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw validationError(`${field} must be an array of links`);
  if (value.length > MAX_MEDIA_PER_MESSAGE) throw validationError(`${field} holds at most ${MAX_MEDIA_PER_MESSAGE} links, got ${value.length}`);
  return value.map((item, index) => {
    if (typeof item !== 'string' || !isHttpsOrLoopbackUrl(item)) {
      throw validationError(`${field}[${index}] must be an https:// link, got ${JSON.stringify(item)}`);
    }
    return item;
  });
}

/** A message's text: a string or left out, and empty only when the message carries media. */
export function messageText(body: JsonObject, mediaUrls: readonly string[]): string {
  const text = body['body'];
  if (text !== undefined && text !== null && typeof text !== 'string') throw validationError('body must be a string');
  const message = typeof text === 'string' ? text : '';
  if (message === '' && mediaUrls.length === 0) throw validationError('body is required (it may be empty only with mediaUrls)');
  return message;
}
