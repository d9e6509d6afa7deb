import type { Dispatcher } from 'undici';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import ProxyAgentClass from 'undici/lib/dispatcher/proxy-agent.js';
import buildConnectorFunction from 'undici/lib/core/connect.js';
import requestOnDispatcher from 'undici/lib/api/api-request.js';
import dispatcherApi from 'undici/lib/api/index.js';
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js';
import undiciUtil from 'undici/lib/core/util.js';

// The pieces of undici the transport uses, imported from their own modules rather than from
// undici's index: the index also loads fetch, WebSocket, caches and cookies (which pull in
// Node's own copy of undici), none of which a command needs, and that loading is most of the
// start-up cost of a command that talks to the API. The build bundles these modules, so what
// ships is fixed at build time and covered by the tests; a future undici that moves them fails
// the build, not a user.

// undici's index gives every dispatcher its request/connect/stream methods; the proxy agent needs
// `connect` for its CONNECT tunnel, so the same is done here.
Object.assign(DispatcherClass.prototype, dispatcherApi);

export const Agent = AgentClass;
export const ProxyAgent = ProxyAgentClass;
export const buildConnector = buildConnectorFunction;
/** A raw header name as lower-case text; the common names come from a lookup table, not a copy and a toLowerCase. */
export const headerNameToString: (name: Buffer | string) => string = undiciUtil.headerNameToString;

export interface RequestInput extends Omit<Dispatcher.RequestOptions, 'origin' | 'path'> {
  dispatcher: Dispatcher;
}

/** undici's request() for one absolute URL on a given dispatcher. */
export function request(url: URL, options: RequestInput): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = options;
  return requestOnDispatcher.call(dispatcher, { ...rest, origin: url.origin, path: `${url.pathname}${url.search}` });
}
