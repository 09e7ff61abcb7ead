/**
 * The walk-forward in a worker thread: the entry point of the thread that `walkForwardOffThread` starts.
 * It receives the frame, the options and the resume point as `workerData`, posts a `progress` message after
 * each refit, and ends with one `result` or `failure` message. Failures are sent as data (kind, message)
 * because an Error crossing threads loses its class, which the caller needs to tell a resume mismatch or a
 * short history from a bug.
 */
import { availableParallelism } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { startScreenThread } from '../hmm/screen-thread.js';
import { NotEnoughHistory, ResumeMismatch, walkForward, type FrameLike, type ResumePoint, type WalkForwardOptions } from './walk-forward.js';
import type { WorkerMessage } from './walk-forward-thread.js';

interface Input {
  frame: FrameLike;
  options: Partial<WalkForwardOptions>;
  resume?: ResumePoint;
}

const post = (m: WorkerMessage): void => parentPort!.postMessage(m);
const { frame, options, resume } = workerData as Input;
// With a second core, the fits screen half their restarts on a second thread (same numbers, less time).
const screen = availableParallelism() > 1 ? startScreenThread() : null;
try {
  const result = walkForward(frame, { ...options, ...(screen ? { screenRunner: screen.runner } : {}) }, resume, (done, total, date) =>
    post({ type: 'progress', done, total, date }),
  );
  post({ type: 'result', result });
} catch (err) {
  const e = err as Error & { code?: unknown; completeDays?: number; needed?: number };
  if (err instanceof ResumeMismatch) post({ type: 'failure', kind: 'resume_mismatch', message: e.message });
  else if (err instanceof NotEnoughHistory)
    post({ type: 'failure', kind: 'not_enough_history', message: e.message, completeDays: e.completeDays!, needed: e.needed! });
  else
    post({ type: 'failure', kind: 'error', message: e.message, name: e.name, ...(typeof e.code === 'string' ? { code: e.code } : {}), stack: e.stack ?? '' });
} finally {
  await screen?.close();
}
