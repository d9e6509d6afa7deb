import type { InputFor } from '../spec.js';
import type { apiCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { ApiRequest, QueryValue } from '../../api/http.js';
import { readTextFile } from '../../input/files.js';
import { parseJsonText } from '../../input/json.js';
import { API_METHODS } from '../defaults.js';
import { writeExact } from '../../output/io.js';
import { projectFields } from '../../output/render.js';

export async function run(input: InputFor<typeof apiCommands, 'api'>, ctx: Context): Promise<number> {
  const first = input.arg(0) ?? '';
  // `svc api PATH` reads with GET; with two arguments the first is the method.
  const methodText = input.arg(1) === undefined ? 'GET' : first;
  const method = API_METHODS.find((m) => m === methodText.toUpperCase());
  if (!method) throw new UsageError(`METHOD must be one of ${API_METHODS.join(', ')}, not "${methodText}"`);
  if (input.arg(1) === undefined && API_METHODS.some((m) => m === first.toUpperCase())) {
    throw new UsageError(`missing PATH after ${method}`, [`For example: svc api ${method} /health`]);
  }
  const rawPath = input.arg(1) ?? first;
  if (/^[a-z]+:\/\//i.test(rawPath)) {
    throw new UsageError(`PATH is relative to {base_url}/api/v1 (like /tenants), not a full URL: "${rawPath}"`);
  }
  const [pathPart, queryPart] = rawPath.split('?', 2) as [string, string | undefined];
  const query: Record<string, QueryValue> = {};
  const addQuery = (key: string, value: string): void => {
    const previous = query[key];
    query[key] = previous === undefined ? value : [...(Array.isArray(previous) ? (previous as string[]) : [String(previous)]), value];
  };
  if (queryPart) for (const [k, v] of new URLSearchParams(queryPart)) addQuery(k, v);
  for (const pair of input.strings('query')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--query takes key=value, not "${pair}"`);
    addQuery(pair.slice(0, eq), pair.slice(eq + 1));
  }
  const request: ApiRequest = { call: 'raw', method, path: pathPart.replace(/^\/?(api\/v1\/)?/, ''), query };
  const data = input.string('data');
  if (data !== undefined) {
    let text: string;
    let source: string;
    if (data === '@-') {
      text = await ctx.readStdin('--data @-');
      source = '<stdin>';
    } else if (data.startsWith('@')) {
      source = data.slice(1);
      text = await readTextFile(source, '--data @FILE');
    } else {
      text = data;
      source = '--data';
    }
    request.json = parseJsonText(text, source);
  }
  const response = await (await ctx.api()).request(request);
  if (input.flag('include')) {
    ctx.io.stderr.write(`HTTP ${response.status}\n`);
    for (const [name, value] of Object.entries(response.headers)) ctx.io.stderr.write(`${name}: ${value}\n`);
    ctx.io.stderr.write('\n');
  }
  if (response.data !== undefined) {
    // --fields selects from the answer (each element of an array), checked against it. A field
    // that is not there is exit 2; after a call that changed something, the whole answer is
    // still printed, so that what the call did is not lost.
    let data: unknown;
    try {
      data = projectFields(ctx, response.data);
    } catch (error) {
      if (!(error instanceof UsageError) || method === 'GET' || method === 'HEAD') throw error;
      writeExact(ctx.io.stdout, `${JSON.stringify(response.data, null, ctx.globals.output === 'ndjson' ? undefined : 2)}\n`);
      throw new UsageError(error.message, [...error.hints, `The ${method} was made: its whole answer is on stdout.`]);
    }
    const pretty = ctx.globals.output === 'ndjson' ? JSON.stringify(data) : JSON.stringify(data, null, 2);
    writeExact(ctx.io.stdout, `${pretty}\n`);
  } else if (response.text !== '') {
    // The answer as the service sent it when piped; on a terminal, made terminal-safe (io.ts).
    writeExact(ctx.io.stdout, response.text.endsWith('\n') ? response.text : `${response.text}\n`);
  } else if (ctx.globals.output === 'json') {
    writeExact(ctx.io.stdout, 'null\n');
  }
  return 0;
}
