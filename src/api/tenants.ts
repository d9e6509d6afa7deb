import { objectOf, type ApiClient } from './http.js';
import { listBody } from './lists.js';

// Typed calls for tenants. They return what the server said and never print.

export type Tenant = Record<string, unknown> & {
  tenantId?: string;
  domain?: string;
  settings?: Record<string, unknown>;
};

export interface TenantWrite {
  tenantId?: string;
  domain?: string;
  settings?: Record<string, unknown>;
  [extra: string]: unknown;
}

const path = (id: string): string => `tenants/${encodeURIComponent(id)}`;

export async function listTenants(api: ApiClient): Promise<Tenant[]> {
  const response = await api.request({ call: 'listTenants', method: 'GET', path: 'tenants' });
  return listBody(response).items as Tenant[];
}

export async function getTenant(api: ApiClient, id: string): Promise<Tenant> {
  const response = await api.request({ call: 'getTenant', method: 'GET', path: path(id) });
  return objectOf<Tenant>(response);
}

export async function createTenant(api: ApiClient, body: TenantWrite): Promise<Tenant> {
  const response = await api.request({ call: 'createTenant', method: 'POST', path: 'tenants', json: body });
  return objectOf<Tenant>(response);
}

/** PUT; the answer's body when it has one, else undefined (the caller reads the tenant back). */
export async function updateTenant(api: ApiClient, id: string, body: TenantWrite): Promise<Tenant | undefined> {
  const response = await api.request({ call: 'updateTenant', method: 'PUT', path: path(id), json: body });
  return response.data === undefined ? undefined : objectOf<Tenant>(response);
}
