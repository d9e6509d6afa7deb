import { BlockList, isIP } from 'node:net';
import { UsageError } from '../errors.js';
import { isLoopbackHost } from '../domain/urls.js';

// Which proxy, if any, a request to the API goes through: HTTPS_PROXY / HTTP_PROXY / ALL_PROXY
// (either case), minus NO_PROXY in the forms curl accepts. Loopback is always direct: that is
// where the sandbox lives.
//
// NO_PROXY: entries separated by commas and/or white space; `*` alone means every host; a
// leading `.` or `*.` is ignored and a name matches itself and every name under it
// (`example.com` and `.example.com` both match `api.example.com`); `host:port` matches that port
// only; IP addresses match exactly, and CIDR blocks (`10.0.0.0/8`, `fd00::/8`) match the
// addresses inside them. Names are not resolved to be compared with IP entries (as in curl).

export interface ProxyChoice {
  url: URL;
  /** The variable it came from, to name it in errors. */
  variable: string;
}

function envFirst(env: Readonly<Record<string, string | undefined>>, names: readonly string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') return { name, value: value.trim() };
  }
  return undefined;
}

export function chooseProxy(target: URL, env: Readonly<Record<string, string | undefined>>): ProxyChoice | undefined {
  const hostname = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isLoopbackHost(hostname)) return undefined;
  const names = target.protocol === 'https:' ? ['HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'all_proxy'] : ['http_proxy', 'HTTP_PROXY', 'ALL_PROXY', 'all_proxy'];
  const chosen = envFirst(env, names);
  if (chosen === undefined) return undefined;
  const noProxy = envFirst(env, ['NO_PROXY', 'no_proxy']);
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  if (noProxy !== undefined && matchesNoProxy(hostname, port, noProxy.value)) return undefined;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(chosen.value) ? chosen.value : `http://${chosen.value}`);
  } catch {
    throw new UsageError(`${chosen.name} is not a proxy URL: "${redactUserinfo(chosen.value)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${chosen.name} must be an http:// or https:// proxy URL, not ${url.protocol}//${url.host}`);
  }
  return { url, variable: chosen.name };
}

/** A proxy URL as it may be printed. */
function redactUserinfo(text: string): string {
  return text.replace(/\/\/[^/@]*@/, '//');
}

export function matchesNoProxy(hostname: string, port: number, noProxy: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  const hostIsIp = isIP(host);
  for (const raw of noProxy.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    let entryPort = 0;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
      entry = bracketed[1]!;
      entryPort = bracketed[2] ? Number(bracketed[2]) : 0;
    } else if (isIP(entry) === 0 && !entry.includes('/')) {
      const withPort = /^(.*):(\d+)$/.exec(entry);
      if (withPort) {
        entry = withPort[1]!;
        entryPort = Number(withPort[2]);
      }
    }
    if (entryPort !== 0 && entryPort !== port) continue;
    if (entry.includes('/')) {
      if (hostIsIp !== 0 && inCidr(host, hostIsIp, entry)) return true;
      continue;
    }
    if (isIP(entry) !== 0) {
      if (hostIsIp !== 0 && entry === host) return true;
      continue;
    }
    const name = entry.replace(/^\*?\./, '').replace(/\.$/, '');
    if (name !== '' && (host === name || host.endsWith(`.${name}`))) return true;
  }
  return false;
}

function inCidr(host: string, family: number, cidr: string): boolean {
  const [network, bitsText] = cidr.split('/') as [string, string];
  const networkFamily = isIP(network);
  const bits = Number(bitsText);
  if (networkFamily === 0 || networkFamily !== family || !Number.isInteger(bits)) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (bits < 0 || bits > (family === 4 ? 32 : 128)) return false;
  const list = new BlockList();
  list.addSubnet(network, bits, type);
  return list.check(host, type);
}
