import { isIPv4, isIPv6 } from 'node:net';

/** An IP address (not a name) on the loopback interface: 127.0.0.0/8, ::1, or ::ffff:127.x.y.z. */
export function isLoopbackAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIPv4(ip)) return ip.startsWith('127.');
  if (!isIPv6(ip)) return false;
  if (ip === '::1' || ip === '0:0:0:0:0:0:0:1') return true;
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip)?.[1];
  return mapped !== undefined && isIPv4(mapped) && mapped.startsWith('127.');
}
