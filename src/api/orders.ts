import { objectOf, type ApiClient } from './http.js';
import type { Order } from '../domain/provisioning.js';

// Typed calls for provisioning orders. They return what the server said and never print.

export async function getOrder(api: ApiClient, orderId: string, signal?: AbortSignal): Promise<Order> {
  return objectOf<Order>(await api.call('getOrder', { params: { orderId }, signal }));
}
