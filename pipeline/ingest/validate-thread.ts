/**
 * `validateDataFiles` (check-dir.ts) on a thread of its own, so that a run validates its input files while
 * DuckDB loads them and the features are computed: the reports are the same (the validator is a pure
 * function of the files' bytes), and the loader still refuses to return anything computed from a file with a
 * problem (load.ts). If the thread cannot start or answer, the files are validated on the calling thread.
 */
import { firstOutcome, startModuleWorker } from '../../src/core/worker-start.js';
import { validateDataFiles, type DataFile } from './check-dir.js';
import type { FileReport } from './validate.js';

export type ValidateReply = { reports: FileReport[] } | { error: { message: string; name: string; stack: string } };

export function validateOffThread(files: readonly DataFile[]): Promise<FileReport[]> {
  return new Promise((resolve, reject) => {
    let worker;
    try {
      worker = startModuleWorker(import.meta.url, './validate-worker', { workerData: { files } });
    } catch {
      resolve(validateDataFiles(files));
      return;
    }
    const settle = firstOutcome(worker);
    worker.on('message', (m: ValidateReply) => {
      if ('reports' in m) settle(() => resolve(m.reports));
      else settle(() => reject(Object.assign(new Error(`validation thread: ${m.error.message}`), { stack: m.error.stack })));
    });
    // A thread that fails or ends before answering leaves the work to this one.
    worker.on('error', () => settle(() => resolve(validateDataFiles(files))));
    worker.on('exit', () => settle(() => resolve(validateDataFiles(files))));
  });
}
