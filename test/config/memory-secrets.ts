import type { SecretStore } from '../../src/config/secrets.js';
import { KeychainUnavailableError } from '../../src/config/secrets.js';

/** A keychain in memory for in-process tests; `unavailable` makes it refuse as a missing one does. */
export function memorySecretStore(options: { unavailable?: boolean } = {}): SecretStore & { items: Map<string, string> } {
  const items = new Map<string, string>();
  const key = (service: string, account: string): string => `${service}|${account}`;
  const check = (): void => {
    if (options.unavailable) throw new KeychainUnavailableError('no answer within 5 s');
  };
  return {
    items,
    description: 'the test keychain',
    async get(service, account) {
      check();
      return items.get(key(service, account));
    },
    async set(service, account, secret) {
      check();
      items.set(key(service, account), secret);
    },
    async delete(service, account) {
      check();
      return items.delete(key(service, account));
    },
  };
}
