import { statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiRoot, resolveSettings } from '../../src/config/settings.js';
import { readStore } from '../../src/config/store.js';
import { openProfileStore } from '../../src/config/store-write.js';
import { tempConfigDir } from '../helpers/cli.js';

describe('apiRoot', () => {
  it('appends /api/v1 once', () => {
    expect(apiRoot('https://api.example.com').href).toBe('https://api.example.com/api/v1/');
    expect(apiRoot('https://api.example.com/').href).toBe('https://api.example.com/api/v1/');
    expect(apiRoot('https://api.example.com/api/v1').href).toBe('https://api.example.com/api/v1/');
    expect(apiRoot('https://api.example.com/base/api/v1/').href).toBe('https://api.example.com/base/api/v1/');
  });
  it('allows http only for loopback hosts', () => {
    for (const ok of ['http://localhost:4010', 'http://127.0.0.1:4010', 'http://127.9.8.7', 'http://[::1]:4010']) {
      expect(() => apiRoot(ok)).not.toThrow();
    }
    for (const bad of ['http://example.com', 'http://10.0.0.1', 'http://128.0.0.1', 'ftp://example.com', 'not a url']) {
      expect(() => apiRoot(bad)).toThrow();
    }
  });
  it('refuses credentials in the URL, never repeating them', () => {
    expect(() => apiRoot('https://me:pw@api.example.com')).toThrow(/must not carry credentials/);
    let message = '';
    try {
      apiRoot('https://me:s3cret-pw@api example.com');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('is not a valid base URL');
    expect(message).not.toContain('s3cret-pw');
  });
});

describe('profile store and precedence', () => {
  let cleanup = (): void => undefined;
  afterEach(() => cleanup());

  it('leaves SIGINT to the CLI when writing the store', async () => {
    const temp = tempConfigDir();
    cleanup = temp.cleanup;
    const before = process.listeners('SIGINT').length;
    const store = await openProfileStore(temp.dir);
    await store.setProfile('x', { baseUrl: 'https://api.example.com', username: 'u', password: 'p' });
    expect(process.listeners('SIGINT').length).toBe(before);
  });

  it('creates the store with mode 0600 and reads it back', async () => {
    const temp = tempConfigDir();
    cleanup = temp.cleanup;
    const store = await openProfileStore(temp.dir);
    await store.setProfile('work', { baseUrl: 'https://api.example.com', username: 'me@example.com', password: 'pw-1', tenant: undefined });
    await store.setActive('work');
    expect(statSync(join(temp.dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(readStore(temp.dir)).toEqual({
      activeProfile: 'work',
      profiles: { work: { baseUrl: 'https://api.example.com', username: 'me@example.com', password: 'pw-1' } },
    });
    expect(await store.removeProfile('work')).toBe(true);
    expect(readStore(temp.dir).activeProfile).toBeUndefined();
  });

  it('takes flag over environment over profile', async () => {
    const temp = tempConfigDir();
    cleanup = temp.cleanup;
    const store = await openProfileStore(temp.dir);
    await store.setProfile('default', { baseUrl: 'https://profile.example.com', username: 'p@example.com', password: 'ppw', tenant: '11111111-1111-1111-1111-111111111111' });
    await store.setProfile('other', { baseUrl: 'https://other.example.com', username: 'o@example.com', password: 'opw' });
    const env = { SVC_CONFIG_DIR: temp.dir };
    const fromProfile = resolveSettings({}, env);
    expect(fromProfile).toMatchObject({ baseUrl: 'https://profile.example.com', baseUrlSource: 'profile', username: 'p@example.com', tenant: '11111111-1111-1111-1111-111111111111' });
    const fromEnv = resolveSettings({}, { ...env, SVC_BASE_URL: 'https://env.example.com', SVC_USERNAME: 'e@example.com', SVC_TENANT: '22222222-2222-2222-2222-222222222222' });
    expect(fromEnv).toMatchObject({ baseUrl: 'https://env.example.com', baseUrlSource: 'env', username: 'e@example.com', password: 'ppw', tenant: '22222222-2222-2222-2222-222222222222' });
    const fromFlags = resolveSettings({ baseUrl: 'https://flag.example.com', tenant: '33333333-3333-3333-3333-333333333333' }, { ...env, SVC_BASE_URL: 'https://env.example.com', SVC_TENANT: '22222222-2222-2222-2222-222222222222' });
    expect(fromFlags).toMatchObject({ baseUrl: 'https://flag.example.com', baseUrlSource: 'flag', tenant: '33333333-3333-3333-3333-333333333333', tenantSource: 'flag' });
    expect(resolveSettings({}, { ...env, SVC_PROFILE: 'other' })).toMatchObject({ profileName: 'other', username: 'o@example.com' });
    expect(resolveSettings({ profile: 'other' }, { ...env, SVC_PROFILE: 'default' })).toMatchObject({ profileName: 'other' });
    expect(() => resolveSettings({ profile: 'missing' }, env)).toThrow(/No profile named "missing"/);
  });

  it('needs no profile file when the environment has everything', () => {
    const temp = tempConfigDir();
    cleanup = temp.cleanup;
    mkdirSync(temp.dir, { recursive: true });
    writeFileSync(join(temp.dir, 'config.json'), '{ broken');
    const settings = resolveSettings({}, { SVC_CONFIG_DIR: temp.dir, SVC_BASE_URL: 'https://e.example.com', SVC_USERNAME: 'u', SVC_PASSWORD: 'p', SVC_TENANT: '22222222-2222-2222-2222-222222222222' });
    expect(settings.username).toBe('u');
    expect(() => resolveSettings({}, { SVC_CONFIG_DIR: temp.dir })).toThrow(/cannot be used/);
  });
});
