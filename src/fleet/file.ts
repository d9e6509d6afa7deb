// Reading a fleet file: YAML, or JSON when the name ends in .json. The value is handed on as
// plain data; where each key and value stands in the text is kept in the parsed document and
// asked for only when a problem must be named (FILE:LINE:COLUMN), so that a file of ten thousand
// numbers carries no index of positions it will not need.

import { parseJsonText } from '../input/json.js';
import { UsageError } from '../errors.js';
import { readPlainYaml } from './plain-yaml.js';

export type PathSegment = string | number;

/** Where something is in the file, from 1. */
export interface Position {
  line: number;
  column: number;
}

export interface FleetSource {
  /** The file name as the user gave it (every message starts with it). */
  file: string;
  value: unknown;
  /**
   * Where the value at `path` begins, or its key with `key: true` (an unknown key is named at the
   * key, a wrong value at the value). The nearest enclosing node when the path is not there.
   */
  positionOf(path: readonly PathSegment[], options?: { key?: boolean }): Position;
}

/** A problem of the file, ready to print: `fleet.yaml:12:7: message`. */
export interface FileProblem {
  position: Position;
  message: string;
}

export function formatProblem(file: string, problem: FileProblem): string {
  return `${file}:${problem.position.line}:${problem.position.column}: ${problem.message}`;
}

/** Every problem at once as one exit-2 error, in file order, so that one run names them all. */
export function problemsError(file: string, problems: readonly FileProblem[], shown = 50): UsageError {
  const sorted = [...problems].sort((a, b) => a.position.line - b.position.line || a.position.column - b.position.column);
  const lines = sorted.slice(0, shown).map((p) => formatProblem(file, p));
  if (sorted.length > shown) lines.push(`... and ${sorted.length - shown} more`);
  if (sorted.length === 1) return new UsageError(`${lines[0]!} (nothing was sent)`);
  return new UsageError(`${sorted.length} problems in ${file} (nothing was sent):\n${lines.map((l) => `  ${l}`).join('\n')}`);
}

type YamlModule = typeof import('yaml');

/**
 * The value alone, quickly, or undefined when the text does not parse. A file in the plain block
 * style (plain-yaml.ts) is read by our own line reader, about five times faster than js-yaml on a
 * file of ten thousand numbers; any other is read by js-yaml 4 (YAML 1.2, the core schema: the
 * same values), itself several times faster and lighter than the `yaml` parser, which keeps every
 * position and reads the file again only when there is a problem to place. The positions of
 * this source are never asked for: they would be wrong. (js-yaml 5 took twice the time and 1.6
 * times the memory of js-yaml 4 on that file.)
 */
export async function quickFleetSource(text: string, file: string): Promise<FleetSource | undefined> {
  const clean = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    if (file.toLowerCase().endsWith('.json')) value = JSON.parse(clean);
    else {
      value = readPlainYaml(clean);
      if (value === undefined) {
        const { load, CORE_SCHEMA } = await import('js-yaml');
        value = load(clean, { schema: CORE_SCHEMA, filename: file });
      }
    }
  } catch {
    return undefined;
  }
  return { file, value, positionOf: () => ({ line: 0, column: 0 }) };
}

/** Parses the text; a syntax error (every one the parser found) is exit 2 naming FILE:LINE:COLUMN. */
export async function parseFleetText(text: string, file: string): Promise<FleetSource> {
  const isJson = file.toLowerCase().endsWith('.json');
  // JSON is read by the JSON reader first, for its own messages (a YAML parser would accept
  // things JSON does not); the YAML parser then reads the same text for positions.
  if (isJson) parseJsonText(text, file);
  const yaml: YamlModule = await import('yaml');
  const lineCounter = new yaml.LineCounter();
  const clean = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const doc = yaml.parseDocument(clean, { lineCounter, prettyErrors: false, uniqueKeys: true, version: '1.2' });
  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  if (doc.errors.length > 0) {
    throw problemsError(
      file,
      doc.errors.map((error) => ({
        position: at(error.pos[0]),
        message: describeYamlError(error.code, error.message),
      })),
    );
  }
  const value: unknown = doc.toJS({ maxAliasCount: 1000 });
  const positionOf = (path: readonly PathSegment[], options: { key?: boolean } = {}): Position => {
    let node: unknown = doc.contents;
    let offset = rangeStart(node) ?? 0;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i]!;
      const last = i === path.length - 1;
      if (yaml.isAlias(node)) node = node.resolve(doc);
      if (yaml.isMap(node)) {
        const pair = node.items.find((p) => (yaml.isScalar(p.key) ? p.key.value : p.key) === segment);
        if (pair === undefined) break;
        if (last && options.key) {
          offset = rangeStart(pair.key) ?? offset;
          break;
        }
        node = pair.value;
        offset = rangeStart(pair.value) ?? rangeStart(pair.key) ?? offset;
      } else if (yaml.isSeq(node) && typeof segment === 'number') {
        const item = node.items[segment];
        if (item === undefined) break;
        node = item;
        offset = rangeStart(item) ?? offset;
      } else {
        break;
      }
    }
    return at(offset);
  };
  return { file, value, positionOf };
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return range?.[0];
}

/** The parser's first line, which is the message; the rest is a drawing of the spot. */
function describeYamlError(code: string, message: string): string {
  const first = message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  return code === 'DUPLICATE_KEY' ? `${first} (a key is given twice here)` : first;
}
