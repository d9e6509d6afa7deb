import { objectOf, type ApiClient } from './http.js';
import type { HealthWire, Received } from '../domain/api/wire.js';

export type Health = Received<HealthWire>;

/** GET /health; a 503 is an answer too (the contract says so): the service tells what is unwell. */
export async function getHealth(api: ApiClient): Promise<Health> {
  return objectOf<Health>(await api.call('getHealth'));
}
