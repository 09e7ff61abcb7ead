/**
 * `validateDataFiles` (check-dir.ts) on a thread of its own, so that a run validates its input files while
 * DuckDB loads them and the features are computed: the reports are the same (the validator is a pure
 * function of the files' bytes), and the loader still refuses to return anything computed from a file with a
 * problem (load.ts). If the thread cannot start or answer, the files are validated on the calling thread.
 *
 * One thread serves the runs of a process one after another: started by the first validation, it is ended
 * once it has had nothing to do for IDLE_MS, and never holds the process open while idle. Starting a thread
 * costs more than validating in it (from the sources, each start registers tsx and loads the validator anew);
 * a run every few seconds (tests, a replayed month) then pays for one start, not one each.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../src/core/worker-start.js';
import { validateDataFiles, type DataFile } from './check-dir.js';
import type { FileReport } from './validate.js';

export type ValidateReply = { reports: FileReport[] } | { error: { message: string; name: string; stack: string } };

/** What the thread is sent, and answers: each request with its id. */
export interface ValidateRequest {
  id: number;
  files: readonly DataFile[];
}
export type ValidateAnswer = ValidateReply & { id: number };

/** How long the thread is kept with nothing to do. */
const IDLE_MS = 2_000;

interface Thread {
  worker: Worker;
  /** Per request id: what to do with its answer, or with null when the thread ended without one. */
  pending: Map<number, (answer: ValidateReply | null) => void>;
  idle: NodeJS.Timeout | null;
}

let thread: Thread | null = null;
let nextId = 0;

function startThread(): Thread {
  const worker = startModuleWorker(import.meta.url, './validate-worker');
  const t: Thread = { worker, pending: new Map(), idle: null };
  // A thread that fails or ends leaves its requests to the calling thread; the next validation starts another.
  const ended = (): void => {
    if (thread === t) thread = null;
    if (t.idle) clearTimeout(t.idle);
    const waiting = [...t.pending.values()];
    t.pending.clear();
    for (const settle of waiting) settle(null);
    void worker.terminate();
  };
  worker.on('message', (m: ValidateAnswer) => {
    const settle = t.pending.get(m.id);
    t.pending.delete(m.id);
    if (t.pending.size === 0) {
      worker.unref();
      t.idle = setTimeout(ended, IDLE_MS);
      t.idle.unref();
    }
    settle?.(m);
  });
  worker.on('error', ended);
  worker.on('exit', ended);
  return t;
}

export function validateOffThread(files: readonly DataFile[]): Promise<FileReport[]> {
  return new Promise((resolve, reject) => {
    let t: Thread;
    try {
      thread ??= startThread();
      t = thread;
    } catch {
      resolve(validateDataFiles(files));
      return;
    }
    const id = nextId++;
    t.pending.set(id, (m) => {
      if (m === null) resolve(validateDataFiles(files));
      else if ('reports' in m) resolve(m.reports);
      else reject(Object.assign(new Error(`validation thread: ${m.error.message}`), { stack: m.error.stack }));
    });
    // Busy: it holds the process open until it answers.
    if (t.idle) clearTimeout(t.idle);
    t.idle = null;
    t.worker.ref();
    t.worker.postMessage({ id, files } satisfies ValidateRequest);
  });
}
