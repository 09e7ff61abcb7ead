/**
 * A background job of a server: a pass at once, then one every `intervalMs`, never two at once (a tick that
 * finds a pass under way is skipped). A failed pass is told to `onError` and the next tick tries again. The
 * returned function stops the job and resolves once a pass under way has finished; a pass that loops asks
 * `stopped()` between its rounds. The timer does not keep the process alive.
 */
export function runEvery(intervalMs: number, pass: (stopped: () => boolean) => Promise<unknown>, onError: (err: unknown) => void): () => Promise<void> {
  let running: Promise<void> | null = null;
  let stopped = false;
  const isStopped = (): boolean => stopped;
  const tick = (): void => {
    if (running || stopped) return;
    running = pass(isStopped)
      .then(() => {}, onError)
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
