import { objectOf, type ApiClient } from './http.js';
import { listBody, type ListPage } from './lists.js';
import type { Order, ProvisionEntry } from '../domain/provisioning.js';
import type { PhoneNumberWire, Received } from '../domain/api/wire.js';

// Typed calls for phone numbers. They return what the server said and never print.

export type PhoneNumber = Received<PhoneNumberWire>;

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

/** POST /phone-numbers/provision; the order the server answered with. */
export async function submitNumberOrder(api: ApiClient, request: ProvisionRequest | UnprovisionRequest): Promise<Order> {
  return objectOf<Order>(await api.call('provisionNumbers', { json: request }));
}

/** One page of GET /phone-numbers/active, whatever its envelope. */
export async function listActiveNumbers(api: ApiClient, page: { page?: number | undefined; limit?: number | undefined }): Promise<ListPage> {
  return listBody(await api.call('listActiveNumbers', { query: { page: page.page, limit: page.limit } }));
}

export async function getPhoneNumber(api: ApiClient, number: string): Promise<PhoneNumber> {
  return objectOf<PhoneNumber>(await api.call('getNumber', { params: { phoneNumber: number } }));
}

/** PUT; the answer's body when it has one, else undefined (the caller reads the number back). */
export async function updatePhoneNumber(api: ApiClient, number: string, body: PhoneNumberUpdate): Promise<PhoneNumber | undefined> {
  const response = await api.call('updateNumber', { params: { phoneNumber: number }, json: body });
  return response.data === undefined ? undefined : objectOf<PhoneNumber>(response);
}

/** POST /phone-numbers/loa with a multipart body already built; the server's JSON object (any fields). */
export async function uploadLoaDocument(api: ApiClient, form: { body: Uint8Array; contentType: string }): Promise<{ data: unknown; location: string | undefined }> {
  const response = await api.call('uploadLoa', { raw: { body: form.body, contentType: form.contentType } });
  return { data: objectOf(response), location: response.headers['location'] };
}
