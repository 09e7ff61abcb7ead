/**
 * A second thread for the screening of a fit's restarts (fit.ts, em-EM): the restarts with an odd index are
 * screened there while this thread screens the even ones, and the fit goes on with all the outcomes in
 * restart order. Screening is a pure function of its inputs (`screenRestart`), so the fit is the same bit
 * for bit on one thread or two; on two cores a walk-forward refit takes about a third less time.
 *
 * The fit is synchronous, so this thread waits for the other one synchronously: it posts the work, screens
 * its own restarts, then blocks on a shared flag (`Atomics.wait`, allowed in worker threads only) until the
 * answer is there and reads it with `receiveMessageOnPort`. Use it from a worker thread (the walk-forward's),
 * never from a process's main thread.
 */
import { MessageChannel, receiveMessageOnPort, type Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../src/core/worker-start.js';
import { screenRestart, type FitOptions, type ScreenOutcome, type ScreenRunner } from './fit.js';
import type { Observations } from './model.js';

/** What the screening thread answers: the outcomes of the restarts it was given, or the error that stopped it. */
export type ScreenReply = { outcomes: ScreenOutcome[] } | { error: { message: string; name: string; stack: string } };
export interface ScreenRequest {
  X: Observations;
  options: FitOptions;
  indexes: number[];
}

/** How long to wait for the other thread's answer before failing the run (screening takes well under a second). */
const ANSWER_TIMEOUT_MS = 300_000;

export interface ScreenThread {
  runner: ScreenRunner;
  close(): Promise<void>;
}

export function startScreenThread(): ScreenThread {
  const { port1, port2 } = new MessageChannel();
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const worker: Worker = startModuleWorker(import.meta.url, './screen-worker', { workerData: { port: port2, signal }, transferList: [port2] });
  let exited: string | null = null;
  worker.on('error', (err) => {
    exited = err.message;
  });
  worker.on('exit', (code) => {
    exited ??= `exit code ${code}`;
  });

  const waitForReply = (): ScreenReply => {
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    for (;;) {
      const received = receiveMessageOnPort(port1);
      if (received) return received.message as ScreenReply;
      if (Date.now() > deadline) throw new Error(`the screening thread did not answer within ${ANSWER_TIMEOUT_MS / 1000} s${exited ? ` (${exited})` : ''}`);
      Atomics.wait(signal, 0, 0, 1000);
    }
  };

  const runner: ScreenRunner = (X, o, indexes) => {
    const { screenRunner: _self, ...options } = o;
    const theirs = indexes.filter((r) => r % 2 === 1);
    const mine = indexes.filter((r) => r % 2 === 0);
    let reply: ScreenReply | null = null;
    if (theirs.length > 0) {
      Atomics.store(signal, 0, 0);
      port1.postMessage({ X, options, indexes: theirs } satisfies ScreenRequest);
    }
    const outcomes = new Map<number, ScreenOutcome>(mine.map((r) => [r, screenRestart(X, options, r)]));
    if (theirs.length > 0) {
      reply = waitForReply();
      if ('error' in reply) {
        const e = new Error(`screening thread: ${reply.error.message}`);
        e.stack = reply.error.stack;
        throw e;
      }
      reply.outcomes.forEach((outcome, i) => outcomes.set(theirs[i]!, outcome));
    }
    return indexes.map((r) => outcomes.get(r)!);
  };

  return {
    runner,
    close: async () => {
      port1.close();
      await worker.terminate();
    },
  };
}
