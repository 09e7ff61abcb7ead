/**
 * `walkForwardOffThread`: the walk-forward of `walk-forward.ts`, run in a worker thread, so the process
 * that runs the pipeline keeps its event loop: when it owns the embedded store, the store goes on serving
 * other processes (a `serve` starting, a command reading) through the model fits (about 30–45 s for the bundled history), and the progress
 * display goes on moving. The result is the same as `walkForward`'s, number for number (typed arrays cross
 * threads by structured clone, which copies doubles exactly).
 *
 * With more than one core the thread screens each refit's restarts with a second thread
 * (pipeline/hmm/screen-thread.ts), same numbers, about a third less time. A resumed run with no refit to make
 * (most nightly runs) runs on the calling thread: a few filter steps, no thread to start.
 */
import type { Worker } from 'node:worker_threads';
import { firstOutcome, startModuleWorker } from '../../src/core/worker-start.js';
import { TradesealError, isErrorCode } from '../../src/core/errors.js';
import {
  NotEnoughHistory,
  refitsAfter,
  ResumeMismatch,
  walkForward,
  type FrameLike,
  type RefitProgress,
  type ResumePoint,
  type WalkForwardOptions,
  type WalkForwardResult,
} from './walk-forward.js';

export type WorkerMessage =
  | { type: 'progress'; done: number; total: number; date: string }
  | { type: 'result'; result: WalkForwardResult }
  | { type: 'failure'; kind: 'resume_mismatch'; message: string }
  | { type: 'failure'; kind: 'not_enough_history'; message: string; completeDays: number; needed: number }
  | { type: 'failure'; kind: 'error'; message: string; name: string; code?: string; stack: string };

/** Starts the worker script next to this module, compiled or from source. */
const startWorker = (data: unknown): Worker => startModuleWorker(import.meta.url, './walk-forward-worker', { workerData: data });

function rebuild(m: Extract<WorkerMessage, { type: 'failure' }>): Error {
  if (m.kind === 'resume_mismatch') return new ResumeMismatch(m.message);
  if (m.kind === 'not_enough_history') return new NotEnoughHistory(m.completeDays, m.needed);
  if (m.code !== undefined && isErrorCode(m.code)) return new TradesealError(m.code, m.message);
  const e = new Error(m.message);
  e.name = m.name;
  e.stack = m.stack;
  return e;
}

export function walkForwardOffThread(
  frame: FrameLike,
  options: Partial<WalkForwardOptions>,
  resume?: ResumePoint,
  onRefit?: RefitProgress,
): Promise<WalkForwardResult> {
  // A resumed run with no refit to make filters its new days one step each (microseconds): starting the
  // threads would cost more than the work, which cannot hold the event loop up.
  if (resume && refitsAfter(frame, options, resume) === 0) return Promise.resolve().then(() => walkForward(frame, options, resume, onRefit));
  return new Promise((resolve, reject) => {
    // Only the data the model reads cross the thread boundary; the callback stays on this side.
    const worker = startWorker({ frame: { dates: frame.dates, columns: frame.columns }, options, ...(resume ? { resume } : {}) });
    const settle = firstOutcome(worker);
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'progress') onRefit?.(m.done, m.total, m.date);
      else if (m.type === 'result') settle(() => resolve(m.result));
      else settle(() => reject(rebuild(m)));
    });
    worker.on('error', (err) => settle(() => reject(err)));
    worker.on('exit', (code) => settle(() => reject(new Error(`the model thread ended (exit code ${code}) before answering`))));
  });
}
