// Small builders of the JSON Schema and OpenAPI objects the document is made of.

import { E164_PATTERN, GUID_PATTERN } from '../../domain/api/patterns.js';

export type Json = Record<string, unknown>;

const described = (description: string | undefined): Json => (description ? { description } : {});

export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
export const e164 = (description?: string): Json => ({ type: 'string', pattern: E164_PATTERN.source, ...described(description) });
export const guid = (description?: string): Json => ({ type: 'string', pattern: GUID_PATTERN.source, ...described(description) });
export const dateTime = (description?: string): Json => ({ type: 'string', format: 'date-time', ...described(description) });
export const str = (description?: string): Json => ({ type: 'string', ...described(description) });
export const nullableStr = (description: string): Json => ({ type: ['string', 'null'], description });
export const enumOf = (values: readonly string[], description?: string): Json => ({ type: 'string', enum: [...values], ...described(description) });
/** A value of the enumeration, or null. */
export const enumOrNull = (values: readonly string[]): Json => ({ anyOf: [enumOf(values), { type: 'null' }] });

/** An answer with a JSON body. */
export const json = (schema: Json, description: string, headers?: Json): Json => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema } },
});

/** A required JSON request body. */
export const body = (schema: Json, description?: string): Json => ({
  required: true,
  ...described(description),
  content: { 'application/json': { schema } },
});

export const errorAnswer = (description: string): Json => json(ref('Error'), description);

export const DEFAULT_ERROR = errorAnswer(
  'Any other error, in the 401 shape: 401 authentication, 403, 404 (also for a resource of another owner), 405, 409, 413, 415, 429 RATE_LIMITED (with Retry-After), and 500/503 under --faults.',
);

/** The fields of T that are always present. */
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];

/** A closed object schema unless `open`, in which case more fields may come. */
interface WireObjectSpec<T, R> {
  description?: string;
  required: R;
  /** One schema for every field of T, in the order the document lists them, and no other. */
  properties: { [K in keyof T]-?: Json };
  open?: true;
}

/**
 * The schema of an object the API sends, tied to its wire type T: the compiler refuses a field
 * of T without a schema, a schema for a field T does not have, and a `required` list that is
 * not exactly T's always-present fields, so the document and the types say one thing.
 */
export const wireObject =
  <T>() =>
  <const R extends readonly RequiredKeys<T>[]>(
    spec: WireObjectSpec<T, R> & ([Exclude<RequiredKeys<T>, R[number]>] extends [never] ? unknown : { required: { missing: Exclude<RequiredKeys<T>, R[number]> } }),
  ): Json => ({
    type: 'object',
    ...described(spec.description),
    required: [...spec.required],
    properties: spec.properties,
    ...(spec.open ? {} : { additionalProperties: false }),
  });
