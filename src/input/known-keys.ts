import { UsageError } from '../errors.js';

// Strict files: a key that a --file does not know is an error naming the key, its line and the
// closest known key, so that a misspelt `webhookPrimaryUrl` is not silently sent (or dropped).

/** Edit distance between two words, case ignored. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[y.length]!;
}

/** The known key nearest to `key`, when it is near enough to be a slip. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(key, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

/** Where each key is: the scan of src/input/json.ts, which the JSON errors and entry lines use too. */
export { jsonKeyLines } from './json.js';

/** Exit 2 for an unknown key: the file and line, the key, the closest known one, and the list. */
export function unknownKeyError(file: string, lines: Map<string, number>, path: string, known: readonly string[]): UsageError {
  const key = path.slice(path.lastIndexOf('.') + 1);
  const where = lines.get(path);
  const near = closestKey(key, known);
  return new UsageError(`${file}${where !== undefined ? `:${where}` : ''}: unknown key "${path}"${near !== undefined ? `; did you mean "${near}"?` : ''}`, [
    `Known keys here: ${known.join(', ')}`,
  ]);
}
