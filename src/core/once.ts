/**
 * `load` once per process: the first call starts it, later calls share its promise; a failure is not kept, so
 * the next call tries again (a key read from a store that was briefly down).
 */
export function onceRetrying<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
