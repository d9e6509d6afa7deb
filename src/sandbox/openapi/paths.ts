// The document's paths, generated from the contract: one path item per path template, its path
// parameters from the contract's parameter table, one operation per endpoint.

import { ENDPOINTS, PATH_PARAMETERS, placeholders, type EndpointName } from '../../domain/api/endpoints.js';
import { DEFAULT_ERROR, type Json } from './json-schema.js';
import { OPERATIONS } from './operations.js';

function pathParameters(path: string): Json[] {
  return placeholders(path).map((name) => {
    const { about, ...rest } = PATH_PARAMETERS[name] as { about: string; pattern?: string };
    return { name, in: 'path', required: true, description: about, schema: { type: 'string', ...(rest.pattern !== undefined ? { pattern: rest.pattern } : {}) } };
  });
}

function operation(name: EndpointName): Json {
  const endpoint = ENDPOINTS[name];
  const doc = OPERATIONS[name];
  const isPublic = 'public' in endpoint;
  return {
    summary: doc.summary,
    tags: [endpoint.group],
    operationId: name,
    ...(isPublic ? { security: [] } : {}),
    ...(doc.query ? { parameters: doc.query } : {}),
    ...(doc.requestBody ? { requestBody: doc.requestBody } : {}),
    // A public endpoint states its own errors; every other one may answer any error in the one shape.
    responses: { ...doc.ok, ...doc.errors, ...(isPublic ? {} : { default: DEFAULT_ERROR }) },
  };
}

/** Every endpoint of the contract; `siteUrl` is the server of those beside the API (hosted media). */
export function paths(siteUrl: string): Json {
  const items: Record<string, Json> = {};
  for (const name of Object.keys(ENDPOINTS) as EndpointName[]) {
    const endpoint = ENDPOINTS[name];
    let item = items[endpoint.path];
    if (item === undefined) {
      const parameters = pathParameters(endpoint.path);
      item = {
        ...('site' in endpoint ? { servers: [{ url: siteUrl }] } : {}),
        ...(parameters.length > 0 ? { parameters } : {}),
      };
      items[endpoint.path] = item;
    }
    item[endpoint.method.toLowerCase()] = operation(name);
  }
  return items;
}
