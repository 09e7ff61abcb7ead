/**
 * The entry point of the screening thread (screen-thread.ts): screens the restarts it is sent, answers on its
 * port, then raises the shared flag so the waiting thread wakes.
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import { screenRestart } from './fit.js';
import type { ScreenReply, ScreenRequest } from './screen-thread.js';

const { port, signal } = workerData as { port: MessagePort; signal: Int32Array };
port.on('message', ({ X, options, indexes }: ScreenRequest) => {
  let reply: ScreenReply;
  try {
    reply = { outcomes: indexes.map((r) => screenRestart(X, options, r)) };
  } catch (err) {
    const e = err as Error;
    reply = { error: { message: e.message, name: e.name, stack: e.stack ?? '' } };
  }
  port.postMessage(reply);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
