import { defineCommands } from '../spec.js';
import { API_METHODS } from '../defaults.js';


export const apiCommands = defineCommands([
  {
    path: ['api'],
    summary: 'call any endpoint under {base_url}/api/v1 with your credentials',
    description: 'The answer is printed as it came (JSON pretty-printed). A non-2xx answer exits as any\nother command would (3 for 401/403, 4 for 404, 1 otherwise).',
    args: [
      // One argument is a PATH read with GET: the body tells which of the two it was given.
      { name: 'METHOD', description: 'HTTP method (GET when only a PATH is given)', choices: API_METHODS },
      { name: 'PATH', description: 'path relative to /api/v1, e.g. /health', required: true },
    ],
    options: [
      { flags: '-d, --data <json>', description: 'request body: JSON text, @FILE, or @- for standard input' },
      { flags: '-q, --query <key=value>', description: 'query parameter (repeatable)', repeatable: true },
      { flags: '-i, --include', description: 'print the status line and headers on stderr' },
    ],
    examples: [
      'svc api /health',
      'svc api GET /phone-numbers/active --query page=2 --query limit=50',
      'svc api PUT /tenants/3f2504e0-4f89-11d3-9a0c-0305e82c3301 --data @tenant.json',
    ],
    exitCodes: [[1, 'the request failed, or the answer was another status that is not 2xx'], [3, 'the answer was 401 or 403'], [4, 'the answer was 404']],
    load: () => import('./api.js'),
  },
]);
