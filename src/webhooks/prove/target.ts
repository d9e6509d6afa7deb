// The one URL a run may send to, checked before anything is sent: https://, or http:// to a
// loopback host (the rule every URL of svc follows), and no credentials in it.

import { isHttpsOrLoopbackUrl, urlWithoutCredentials as shownUrl } from '../../domain/urls.js';
import { UsageError } from '../../errors.js';

export function receiverUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new UsageError(`"${text}" is not a URL: give the receiver's full address`, ['e.g. svc webhook prove https://example.com/webhooks/svc']);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${url.protocol}// is not a webhook URL: the receiver must be https://, or http:// on a loopback host`);
  }
  if (url.hostname === '') throw new UsageError(`${shownUrl(url)} has no host`);
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${shownUrl(url)}: the URL holds credentials, which the service never sends that way`, [
      'give the Basic credentials the receiver expects with --basic-auth-env VAR (VAR holding USER:PASSWORD)',
    ]);
  }
  if (!isHttpsOrLoopbackUrl(url)) {
    throw new UsageError(`${shownUrl(url)}: plain http:// is allowed only to loopback hosts (localhost, 127.0.0.0/8, [::1])`, [
      'the service calls https:// endpoints only; check the receiver at its https:// address',
    ]);
  }
  return url;
}
