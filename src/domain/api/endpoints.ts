// The API, endpoint by endpoint, once. The client builds its requests and checks its answers
// from this table, the sandbox's route table is keyed by its names (a missing handler does not
// compile), and the OpenAPI document's paths come from it. Adding an endpoint starts here.

import { E164_PATTERN, GUID_PATTERN } from './patterns.js';

/**
 * What a good answer is, for the client:
 * - `object`: a 2xx with a JSON object body.
 * - `list`: a 2xx with a JSON array, or an object holding one (an envelope: items, data...).
 * - `object-or-empty`: a 2xx with a JSON object, or with no body at all (a PUT's 204).
 * - `any`: any 2xx with a body that is not broken JSON (the raw `svc api` command).
 * No kind admits a 1xx or 3xx: redirects are never followed.
 */
export type AnswerKind = 'object' | 'list' | 'object-or-empty' | 'any';

export type HttpMethod = 'GET' | 'POST' | 'PUT';

/** The resource an endpoint belongs to (the OpenAPI document's tags, in this order). */
export const API_GROUPS = ['health', 'tenants', 'numbers', 'messages', 'media', 'sandbox'] as const;
export type ApiGroup = (typeof API_GROUPS)[number];

/** The API's root below the service's base URL. */
export const API_PREFIX = '/api/v1';

/** Every parameter a path template may hold: its pattern (when it has one) and what it is. */
export const PATH_PARAMETERS = {
  tenantId: { pattern: GUID_PATTERN.source, about: 'Tenant GUID (400 when not a GUID).' },
  orderId: { pattern: '^\\d{1,15}$', about: 'Order id (an integer).' },
  phoneNumber: { pattern: E164_PATTERN.source, about: 'E.164, URL-encoded (+ as %2B).' },
  messageId: { pattern: GUID_PATTERN.source, about: 'Message GUID.' },
  deliveryId: { about: 'The failed event.' },
  mediaId: { pattern: GUID_PATTERN.source, about: 'Stored media id.' },
  fileName: { about: 'The file name, percent-encoded.' },
} as const satisfies Record<string, { pattern?: string; about: string }>;
export type PathParameter = keyof typeof PATH_PARAMETERS;

/** The `{name}` placeholders of a path template. */
type PlaceholdersOf<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PlaceholdersOf<Rest> : never;

interface EndpointSpec {
  method: HttpMethod;
  /** Below the API root (or, for `site`, below the base URL); `{name}` is a PATH_PARAMETERS entry. */
  path: string;
  group: ApiGroup;
  /** What a good answer is to the client. */
  answer: AnswerKind;
  /** The statuses of a good answer, as the service gives them. */
  ok: readonly number[];
  /** Error statuses that are still an answer (a health check's 503). */
  acceptErrors?: readonly number[];
  /** Exists only in the sandbox, never in the service. */
  sandboxOnly: boolean;
  /** Needs no credentials (it describes the API, or its link is its key). */
  public?: true;
  /** Served beside the API, below the base URL, rather than under API_PREFIX. */
  site?: true;
  /** The CLI never calls it by name (a document or a link the service hands out). */
  notCalled?: true;
}

/** Each template may only name known parameters: a typo in a path is a compile error. */
type Checked<T extends Record<string, EndpointSpec>> = {
  [K in keyof T]: PlaceholdersOf<T[K]['path']> extends PathParameter ? T[K] : { path: `unknown parameter in ${T[K]['path']}` };
};
const checked = <T extends Record<string, EndpointSpec>>(table: T & Checked<T>): T => table;

// In the order of the OpenAPI document; where two paths match one request (`/phone-numbers/active`
// and `/phone-numbers/{phoneNumber}`), the earlier wins.
export const ENDPOINTS = checked({
  getOpenApi: { method: 'GET', path: '/openapi.json', group: 'sandbox', answer: 'object', ok: [200], sandboxOnly: true, public: true, notCalled: true },
  getHealth: { method: 'GET', path: '/health', group: 'health', answer: 'object', ok: [200], acceptErrors: [503], sandboxOnly: false },
  listTenants: { method: 'GET', path: '/tenants', group: 'tenants', answer: 'list', ok: [200], sandboxOnly: false },
  createTenant: { method: 'POST', path: '/tenants', group: 'tenants', answer: 'object', ok: [201], sandboxOnly: false },
  getTenant: { method: 'GET', path: '/tenants/{tenantId}', group: 'tenants', answer: 'object', ok: [200], sandboxOnly: false },
  updateTenant: { method: 'PUT', path: '/tenants/{tenantId}', group: 'tenants', answer: 'object-or-empty', ok: [204], sandboxOnly: false },
  provisionNumbers: { method: 'POST', path: '/phone-numbers/provision', group: 'numbers', answer: 'object', ok: [202], sandboxOnly: false },
  uploadLoa: { method: 'POST', path: '/phone-numbers/loa', group: 'numbers', answer: 'object', ok: [201], sandboxOnly: false },
  getOrder: { method: 'GET', path: '/phone-numbers/orders/{orderId}', group: 'numbers', answer: 'object', ok: [200], sandboxOnly: false },
  listActiveNumbers: { method: 'GET', path: '/phone-numbers/active', group: 'numbers', answer: 'list', ok: [200], sandboxOnly: false },
  getNumber: { method: 'GET', path: '/phone-numbers/{phoneNumber}', group: 'numbers', answer: 'object', ok: [200], sandboxOnly: false },
  updateNumber: { method: 'PUT', path: '/phone-numbers/{phoneNumber}', group: 'numbers', answer: 'object-or-empty', ok: [204], sandboxOnly: false },
  sendMessage: { method: 'POST', path: '/messages', group: 'messages', answer: 'object', ok: [200, 202], sandboxOnly: false },
  getMessage: { method: 'GET', path: '/messages/{messageId}', group: 'messages', answer: 'object', ok: [200], sandboxOnly: false },
  uploadMedia: { method: 'POST', path: '/media', group: 'media', answer: 'object', ok: [201], sandboxOnly: false },
  simulateInbound: { method: 'POST', path: '/sandbox/inbound', group: 'sandbox', answer: 'object', ok: [202], sandboxOnly: true },
  triggerMessageReceived: { method: 'POST', path: '/sandbox/triggers/message-received', group: 'sandbox', answer: 'object', ok: [202], sandboxOnly: true },
  triggerDeliveryReceipt: { method: 'POST', path: '/sandbox/triggers/delivery-receipt', group: 'sandbox', answer: 'object', ok: [202], sandboxOnly: true },
  triggerOrderStatus: { method: 'POST', path: '/sandbox/triggers/order-status', group: 'sandbox', answer: 'object', ok: [202], sandboxOnly: true },
  listDeliveries: { method: 'GET', path: '/sandbox/webhooks/deliveries', group: 'sandbox', answer: 'list', ok: [200], sandboxOnly: true },
  listFailedEvents: { method: 'GET', path: '/sandbox/webhooks/failed', group: 'sandbox', answer: 'list', ok: [200], sandboxOnly: true },
  replayFailedEvent: { method: 'POST', path: '/sandbox/webhooks/failed/{deliveryId}/replay', group: 'sandbox', answer: 'object', ok: [202], sandboxOnly: true },
  getMedia: { method: 'GET', path: '/media/{mediaId}/{fileName}', group: 'media', answer: 'any', ok: [200], sandboxOnly: false, public: true, site: true, notCalled: true },
} as const);

export type Endpoints = typeof ENDPOINTS;
export type EndpointName = keyof Endpoints;
export type Endpoint = Endpoints[EndpointName];
/** The endpoints the CLI calls by name (the others are a document and the links it is handed). */
export type CalledEndpointName = { [K in EndpointName]: Endpoints[K] extends { notCalled: true } ? never : K }[EndpointName];

export const ENDPOINT_NAMES = Object.keys(ENDPOINTS) as EndpointName[];

/** The parameters of an endpoint's path, by name. */
export type PathParams<K extends EndpointName> = { [N in PlaceholdersOf<Endpoints[K]['path']>]: string };
export type HasPathParams<K extends EndpointName> = [PlaceholdersOf<Endpoints[K]['path']>] extends [never] ? false : true;

/** The parameter names of a template, in order. */
export function placeholders(path: string): PathParameter[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as PathParameter);
}

/** Each template's literal parts between its parameters, parsed once. */
const templates = new Map<EndpointName, { pieces: string[]; names: PathParameter[] }>();

function template(name: EndpointName): { pieces: string[]; names: PathParameter[] } {
  let parsed = templates.get(name);
  if (parsed === undefined) {
    const path = ENDPOINTS[name].path;
    parsed = { pieces: path.split(/\{[^}]+\}/), names: placeholders(path) };
    templates.set(name, parsed);
  }
  return parsed;
}

/** An endpoint's path with its parameters percent-encoded (`+15551234567` as `%2B15551234567`). */
export function endpointPath<K extends EndpointName>(name: K, params: PathParams<K>): string {
  const { pieces, names } = template(name);
  if (names.length === 0) return pieces[0] as string;
  let path = pieces[0] as string;
  names.forEach((param, i) => {
    path += encodeURIComponent((params as Record<string, string>)[param] ?? '') + (pieces[i + 1] as string);
  });
  return path;
}
