// When a service-hosted media link stops working, read from the link itself. The first answer
// shape has no expiry field: its link carries a signed access token in its query, and the token
// says until when it is valid. The usual spellings of that token's expiry:
//   ?expires=1767225600&sig=...             seconds since the epoch (the sandbox, CDN signed URLs)
//   ?se=2125-01-01T00:00:00Z&sig=...        an ISO 8601 date (shared access signatures)
//   ?X-Amz-Date=20260101T000000Z&X-Amz-Expires=604800   a start and a lifetime in seconds
//   (X-Goog-Date and X-Goog-Expires likewise)

/** The expiry the link's token carries, as an ISO 8601 UTC date; undefined when it carries none that can be read. */
export function linkExpiry(link: string): string | undefined {
  let query: URLSearchParams;
  try {
    query = new URL(link).searchParams;
  } catch {
    return undefined;
  }
  const get = (name: string): string | undefined => {
    for (const [key, value] of query) if (key.toLowerCase() === name.toLowerCase() && value !== '') return value;
    return undefined;
  };
  const at = absoluteExpiry(get('expires') ?? get('se') ?? get('exp') ?? get('expiry'));
  if (at !== undefined) return at;
  for (const vendor of ['X-Amz', 'X-Goog']) {
    const relative = startPlusLifetime(get(`${vendor}-Date`), get(`${vendor}-Expires`));
    if (relative !== undefined) return relative;
  }
  return undefined;
}

/** Seconds since the epoch, or a date: the moment as ISO 8601 UTC. */
function absoluteExpiry(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  // Seconds, not milliseconds: 9 to 11 digits covers 1973 to 5138.
  if (/^\d{9,11}$/.test(value)) return isoOf(Number(value) * 1000);
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value)) return isoOf(Date.parse(value));
  return undefined;
}

/** `20260101T000000Z` and a lifetime in seconds: the moment the link stops working. */
function startPlusLifetime(start: string | undefined, lifetime: string | undefined): string | undefined {
  const parts = start === undefined ? null : /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(start);
  if (parts === null || lifetime === undefined || !/^\d{1,10}$/.test(lifetime)) return undefined;
  const [, y, mo, d, h, mi, s] = parts.map(Number) as [number, number, number, number, number, number, number];
  return isoOf(Date.UTC(y, mo - 1, d, h, mi, s) + Number(lifetime) * 1000);
}

function isoOf(ms: number): string | undefined {
  if (!Number.isFinite(ms)) return undefined;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
