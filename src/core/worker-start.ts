/**
 * Starts a worker thread on a module of tradeseal (the pipeline's model stage, the FIX drop-copy session),
 * compiled or from source: from the TypeScript sources (tests, `bin/dev.js`) the thread registers tsx before
 * importing its entry (a loader registered in this thread does not reach a new one); from the build it imports
 * the compiled entry directly. `entry` is the module's path relative to `from` (the caller's `import.meta.url`),
 * without its extension.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function startModuleWorker(from: string, entry: string, options: WorkerOptions = {}): Worker {
  const fromSource = from.endsWith('.ts');
  const url = new URL(`${entry}.${fromSource ? 'ts' : 'js'}`, from);
  if (!fromSource) return new Worker(url, options);
  const tsx = pathToFileURL(createRequire(from).resolve('tsx/esm/api')).href;
  const boot = `(async () => { const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(url.href)}); })()`;
  return new Worker(boot, { ...options, eval: true });
}

/**
 * For a worker that answers once: a function that runs the first outcome it is given (the answer, an error,
 * the exit) and ends the worker, and ignores every later one.
 */
export function firstOutcome(worker: Worker): (fn: () => void) => void {
  let settled = false;
  return (fn) => {
    if (settled) return;
    settled = true;
    fn();
    void worker.terminate();
  };
}
