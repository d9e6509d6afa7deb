import { NetworkError } from '../errors.js';
import { AnswerTooLarge, errorCode, type TransportFailure } from './transport.js';

// What a failed exchange means, in words that name the real cause: the proxy when it was the
// proxy, the certificate's actual problem for TLS, the --timeout for a deadline. `sent` tells the
// send engine whether the request may have reached the server (never retried, `unknown`).

const TLS_CAUSES: Record<string, { text: string; trust: boolean }> = {
  CERT_HAS_EXPIRED: { text: 'its certificate has expired', trust: false },
  CERT_NOT_YET_VALID: { text: 'its certificate is not valid yet (check this machine\'s clock)', trust: false },
  ERR_TLS_CERT_ALTNAME_INVALID: { text: 'its certificate is for another host name', trust: false },
  DEPTH_ZERO_SELF_SIGNED_CERT: { text: 'its certificate is self-signed', trust: true },
  SELF_SIGNED_CERT_IN_CHAIN: { text: 'its certificate chain ends in a self-signed certificate this machine does not trust', trust: true },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: { text: 'its certificate was issued by an unknown authority', trust: true },
  UNABLE_TO_GET_ISSUER_CERT: { text: 'its certificate was issued by an unknown authority', trust: true },
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: { text: 'its certificate was issued by an unknown authority', trust: true },
  CERT_REVOKED: { text: 'its certificate has been revoked', trust: false },
  CERT_SIGNATURE_FAILURE: { text: 'its certificate signature does not verify', trust: false },
};

const TLS_CODE = /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO|ERR_OSSL)/;

const NOT_SENT_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed (temporarily)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  UND_ERR_CONNECT_TIMEOUT: 'no connection in time',
};

export interface FailureContext {
  url: URL;
  timeoutMs: number;
  timedOut: boolean;
  /** The proxy the exchange went through, as it may be shown. */
  proxy: string | undefined;
  /** The API root (--base-url), to suggest its http:// form when the server spoke plain HTTP. */
  base?: URL;
}

/** OpenSSL's words when the bytes that came back were not TLS at all (an HTTP answer). */
const PLAIN_HTTP_CODES = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST']);
const PLAIN_HTTP_WORDS = /wrong version number|packet length too long|http request/i;

/** The base URL as given (without the /api/v1 the CLI appends), http:// and no credentials. */
function asPlainHttp(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  shown.search = '';
  shown.hash = '';
  shown.pathname = shown.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return `http://${shown.href.slice('https://'.length).replace(/\/$/, '')}`;
}

export function describeTransportFailure(failure: TransportFailure, context: FailureContext): NetworkError {
  const { url, timeoutMs, proxy } = context;
  const host = url.host;
  const error = failure.cause;
  const code = errorCode(error);
  const sent = failure.stage !== 'connect';
  const seconds = `${timeoutMs / 1000} s (--timeout)`;
  if (context.timedOut) {
    if (failure.stage === 'connect') return new NetworkError(`Cannot connect to ${proxy ? `the proxy ${proxy}` : host}: no connection within ${seconds}`, false, error);
    const what = failure.stage === 'answer' ? ': the answer began but did not finish in time' : '';
    return new NetworkError(`No answer from ${host} within ${seconds}${what}`, true, error);
  }
  if (error instanceof AnswerTooLarge) {
    // Read no further and never again: the same request would bring the same answer.
    const size = error.declared ? `its Content-Length is ${mebibytes(error.size)}` : `more than ${mebibytes(error.limit)} had come`;
    return new NetworkError(`The answer from ${host} is too large: ${size}, and svc reads at most ${mebibytes(error.limit)} of an answer (docs/limits.md)`, true, error, {
      permanent: true,
    });
  }
  if (code === 'ERR_SVC_NOT_LOOPBACK') {
    return new NetworkError(`Refused to connect to ${host}: ${error instanceof Error ? error.message : String(error)}`, false, error, { permanent: true });
  }
  if (url.protocol === 'https:' && code !== undefined && TLS_CODE.test(code) && (PLAIN_HTTP_CODES.has(code) || (error instanceof Error && PLAIN_HTTP_WORDS.test(error.message)))) {
    // An https:// URL pointed at a plain-HTTP port: OpenSSL's own text means nothing to a user.
    const shown = asPlainHttp(context.base?.protocol === 'https:' ? context.base : new URL(url.origin));
    return new NetworkError(`${host} answered in plain HTTP, not HTTPS: is the URL ${shown}? (${code})`, false, error, { permanent: true });
  }
  if (code !== undefined && TLS_CODE.test(code)) {
    const cause = TLS_CAUSES[code];
    const detail = cause?.text ?? (error instanceof Error ? error.message : code);
    const trustHint = cause?.trust ? '; if the service uses a private certificate authority, point NODE_EXTRA_CA_CERTS at its PEM file' : '';
    return new NetworkError(`TLS failure talking to ${host}: ${detail} (${code})${trustHint}`, false, error, { permanent: true });
  }
  if (proxy !== undefined) {
    // Every connection goes to the proxy: a connection that failed is the proxy's.
    if (code !== undefined && NOT_SENT_WORDS[code] !== undefined && failure.stage === 'connect') {
      return new NetworkError(`Cannot connect to the proxy ${proxy}: ${NOT_SENT_WORDS[code]}`, false, error);
    }
    const message = error instanceof Error ? error.message : String(error);
    const proxyAnswer = /Proxy response \((\d+)\)/i.exec(message)?.[1] ?? (/Proxy Authentication Required/i.test(message) ? '407' : undefined);
    if (proxyAnswer !== undefined) {
      return new NetworkError(`The proxy ${proxy} would not connect to ${host}: it answered HTTP ${proxyAnswer}`, false, error);
    }
  }
  if (code !== undefined && NOT_SENT_WORDS[code] !== undefined && !sent) {
    return new NetworkError(`Cannot connect to ${host}: ${NOT_SENT_WORDS[code]}`, false, error, { permanent: code === 'ENOTFOUND' });
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new NetworkError(
    `The connection to ${host}${proxy ? ` (through the proxy ${proxy})` : ''} failed${failure.stage === 'answer' ? ' while reading the answer' : ''}: ${detail}${code ? ` (${code})` : ''}`,
    sent,
    error,
  );
}

function mebibytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB` : `${bytes} bytes`;
}
