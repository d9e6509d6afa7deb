import { objectOf, type ApiClient } from './http.js';
import { listBody } from './lists.js';
import type { Received, TenantWire } from '../domain/api/wire.js';

// Typed calls for tenants. They return what the server said and never print.

export type Tenant = Received<TenantWire>;

export interface TenantWrite {
  tenantId?: string;
  domain?: string;
  settings?: Record<string, unknown>;
  [extra: string]: unknown;
}

export async function listTenants(api: ApiClient): Promise<Tenant[]> {
  return listBody(await api.call('listTenants')).items as Tenant[];
}

export async function getTenant(api: ApiClient, id: string): Promise<Tenant> {
  return objectOf<Tenant>(await api.call('getTenant', { params: { tenantId: id } }));
}

export async function createTenant(api: ApiClient, body: TenantWrite): Promise<Tenant> {
  return objectOf<Tenant>(await api.call('createTenant', { json: body }));
}

/** PUT; the answer's body when it has one, else undefined (the caller reads the tenant back). */
export async function updateTenant(api: ApiClient, id: string, body: TenantWrite): Promise<Tenant | undefined> {
  const response = await api.call('updateTenant', { params: { tenantId: id }, json: body });
  return response.data === undefined ? undefined : objectOf<Tenant>(response);
}
