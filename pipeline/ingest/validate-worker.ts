/**
 * The entry point of the validation thread (validate-thread.ts): validates the files of each request it is
 * sent and answers with their reports, or with the error that stopped it, under the request's id.
 */
import { parentPort } from 'node:worker_threads';
import { validateDataFiles, type DataFile } from './check-dir.js';
import type { ValidateAnswer, ValidateRequest } from './validate-thread.js';

parentPort?.on('message', ({ id, files }: ValidateRequest) => {
  let answer: ValidateAnswer;
  try {
    const reports = validateDataFiles(
      files.map((f: DataFile) => ({
        ...f,
        // Buffers cross threads as plain Uint8Arrays; the validator reads them as UTF-8 text.
        bytes: f.bytes === null ? null : Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength),
      })),
    );
    answer = { id, reports };
  } catch (err) {
    const e = err as Error;
    answer = { id, error: { message: e.message, name: e.name, stack: e.stack ?? '' } };
  }
  parentPort?.postMessage(answer);
});
