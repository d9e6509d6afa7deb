import type { ApiClient } from './http.js';
import { listBody, type ListPage } from './lists.js';
import type { Order, ProvisionEntry } from '../domain/provisioning.js';

// Typed calls for phone numbers. They return what the server said and never print.

export type PhoneNumber = Record<string, unknown> & {
  phoneNumber?: string;
  status?: string;
  settings?: Record<string, unknown>;
};

export interface ProvisionRequest {
  action: 'Provision';
  tenantId: string;
  phoneNumbers: ProvisionEntry[];
}

export interface UnprovisionRequest {
  action: 'Unprovision';
  tenantId: string;
  phoneNumbers: { number: string }[];
}

/** Fields PUT /phone-numbers/{number} takes (the document's "updatable fields"). */
export type PhoneNumberUpdate = Record<string, unknown>;

/** `+15551234567` becomes `%2B15551234567`, as the document asks. */
export const numberPath = (number: string): string => `phone-numbers/${encodeURIComponent(number)}`;

/** POST /phone-numbers/provision; the order the server answered with. */
export async function submitNumberOrder(api: ApiClient, request: ProvisionRequest | UnprovisionRequest): Promise<Order | undefined> {
  const response = await api.request({ method: 'POST', path: 'phone-numbers/provision', json: request });
  return typeof response.data === 'object' && response.data !== null && !Array.isArray(response.data) ? (response.data as Order) : undefined;
}

/** One page of GET /phone-numbers/active, whatever its envelope. */
export async function listActiveNumbers(api: ApiClient, page: { page?: number | undefined; limit?: number | undefined }): Promise<ListPage> {
  const response = await api.request({ method: 'GET', path: 'phone-numbers/active', query: { page: page.page, limit: page.limit } });
  return listBody(response, 'GET /phone-numbers/active');
}

export async function getPhoneNumber(api: ApiClient, number: string): Promise<PhoneNumber> {
  const response = await api.request({ method: 'GET', path: numberPath(number) });
  return (typeof response.data === 'object' && response.data !== null ? response.data : {}) as PhoneNumber;
}

/** PUT; the answer's body when it has one, else undefined (the caller reads the number back). */
export async function updatePhoneNumber(api: ApiClient, number: string, body: PhoneNumberUpdate): Promise<PhoneNumber | undefined> {
  const response = await api.request({ method: 'PUT', path: numberPath(number), json: body });
  return typeof response.data === 'object' && response.data !== null && !Array.isArray(response.data) ? (response.data as PhoneNumber) : undefined;
}

/** POST /phone-numbers/loa with a multipart body already built; the server's answer (any shape). */
export async function uploadLoaDocument(api: ApiClient, form: { body: Uint8Array; contentType: string }): Promise<{ data: unknown; location: string | undefined }> {
  const response = await api.request({ method: 'POST', path: 'phone-numbers/loa', raw: { body: form.body, contentType: form.contentType } });
  return { data: response.data ?? (response.text.trim() === '' ? undefined : response.text.trim()), location: response.headers['location'] };
}
