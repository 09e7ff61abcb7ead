/**
 * The entry point of the validation thread (validate-thread.ts): validates the files it is given and answers
 * with their reports, or with the error that stopped it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { validateDataFiles, type DataFile } from './check-dir.js';
import type { ValidateReply } from './validate-thread.js';

const files = (workerData as { files: DataFile[] }).files.map((f) => ({
  ...f,
  // Buffers cross threads as plain Uint8Arrays; the validator reads them as UTF-8 text.
  bytes: f.bytes === null ? null : Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength),
}));
let reply: ValidateReply;
try {
  reply = { reports: validateDataFiles(files) };
} catch (err) {
  const e = err as Error;
  reply = { error: { message: e.message, name: e.name, stack: e.stack ?? '' } };
}
parentPort?.postMessage(reply);
