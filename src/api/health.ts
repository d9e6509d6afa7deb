import { objectOf, type ApiClient } from './http.js';

export type Health = Record<string, unknown> & { status?: string; totalDuration?: string; entries?: unknown };

export async function getHealth(api: ApiClient): Promise<Health> {
  const response = await api.request({ call: 'health', method: 'GET', path: 'health', accept: [503] });
  return objectOf<Health>(response);
}
