import { objectOf, type ApiClient } from './http.js';
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
export async function submitNumberOrder(api: ApiClient, request: ProvisionRequest | UnprovisionRequest): Promise<Order> {
  const response = await api.request({ call: 'submitNumberOrder', method: 'POST', path: 'phone-numbers/provision', json: request });
  return objectOf<Order>(response);
}

/** One page of GET /phone-numbers/active, whatever its envelope. */
export async function listActiveNumbers(api: ApiClient, page: { page?: number | undefined; limit?: number | undefined }): Promise<ListPage> {
  const response = await api.request({ call: 'listNumbers', method: 'GET', path: 'phone-numbers/active', query: { page: page.page, limit: page.limit } });
  return listBody(response);
}

export async function getPhoneNumber(api: ApiClient, number: string): Promise<PhoneNumber> {
  const response = await api.request({ call: 'getNumber', method: 'GET', path: numberPath(number) });
  return objectOf<PhoneNumber>(response);
}

/** PUT; the answer's body when it has one, else undefined (the caller reads the number back). */
export async function updatePhoneNumber(api: ApiClient, number: string, body: PhoneNumberUpdate): Promise<PhoneNumber | undefined> {
  const response = await api.request({ call: 'updateNumber', method: 'PUT', path: numberPath(number), json: body });
  return response.data === undefined ? undefined : objectOf<PhoneNumber>(response);
}

/** POST /phone-numbers/loa with a multipart body already built; the server's JSON object (any fields). */
export async function uploadLoaDocument(api: ApiClient, form: { body: Uint8Array; contentType: string }): Promise<{ data: unknown; location: string | undefined }> {
  const response = await api.request({ call: 'uploadLoa', method: 'POST', path: 'phone-numbers/loa', raw: { body: form.body, contentType: form.contentType } });
  return { data: objectOf(response), location: response.headers['location'] };
}
