// The one transport rule for every URL we send to, call or hand out: https://, or plain http://
// only to a loopback host (the local sandbox, a listener on this machine). The base URL, webhook
// endpoints, media links, the LOA link, a relay's target and the sandbox's own checks all ask
// here, and the HTTP transport checks the socket it got with the same address rule.

/** An IP address on the loopback interface: 127.0.0.0/8, ::1, or ::ffff:127.x.y.z (brackets allowed). */
export function isLoopbackAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (ip === '::1' || ip === '0:0:0:0:0:0:0:1') return true;
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip)?.[1];
  return isLoopbackIpv4(mapped ?? ip);
}

function isLoopbackIpv4(ip: string): boolean {
  const octets = ip.split('.');
  return octets.length === 4 && octets[0] === '127' && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
}

/** `localhost` and its subdomains (RFC 6761), also written fully qualified (`localhost.`). */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** Hosts that may be reached over plain http: localhost names and loopback addresses. */
export function isLoopbackHost(hostname: string): boolean {
  return isLocalhostName(hostname) || isLoopbackAddress(hostname);
}

function parsed(value: string | URL): URL | undefined {
  if (typeof value !== 'string') return value;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** True for an absolute https:// URL with a host. */
export function isHttpsUrl(value: string | URL): boolean {
  const url = parsed(value);
  return url !== undefined && url.protocol === 'https:' && url.hostname !== '';
}

/** True for an https:// URL, or an http:// URL whose host is a loopback host. */
export function isHttpsOrLoopbackUrl(value: string | URL): boolean {
  const url = parsed(value);
  if (url === undefined || url.hostname === '') return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

/** The URL as it may be shown (in a history, an error, a report): without any user:password part. */
export function urlWithoutCredentials(url: URL): string {
  if (url.username === '' && url.password === '') return url.href;
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}
