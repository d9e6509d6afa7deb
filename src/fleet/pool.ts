// Bounded concurrency for the reads and writes of a fleet: at most `limit` calls at once, in
// order of the list, stopping at the first failure (the calls already running finish first, so
// that nothing is left half-known).

export async function forEachConcurrent<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        await work(items[index]!, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
  if (failure !== undefined) throw failure.error;
}
