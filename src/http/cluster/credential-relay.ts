/**
 * Credential changes under `serve --workers N`: the worker that makes a change (a token revoked, a key
 * rotated or revoked, a tier changed) tells its siblings through the primary and learns when each has
 * applied it, so that its answer comes after the change holds on every worker (src/credentials/changes.ts).
 *
 * - In the primary, `relayCredentialChanges` forwards a change to every other worker that has said it applies
 *   changes (each says so before it builds its server, so no worker answers requests before it is counted),
 *   collects their confirmations and answers the asking worker with the pids that did not confirm within the
 *   time it gives (none, normally, within a millisecond or two). A worker that exits is not waited for: it
 *   holds nothing any more.
 * - In a worker, `joinCredentialChanges` is the `Siblings` of src/credentials/changes.ts: it applies what the
 *   primary forwards and confirms it, and asks the primary to tell the others of its own changes.
 */
import cluster, { type Worker } from 'node:cluster';
import { decodeChange, type CredentialChange } from '../../credentials/change.js';
import type { ApplyChange, Siblings } from '../../credentials/changes.js';
import {
  isChangeMessageToPrimary,
  isChangeMessageToWorker,
  type ChangeApplied,
  type ChangeHeld,
  type ChangeMessageToPrimary,
  type ChangeRequest,
  type ChangeToApply,
} from './messages.js';

interface Relayed {
  origin: Worker;
  /** The asking worker's id of the request. */
  id: number;
  waiting: Set<Worker>;
  timer: NodeJS.Timeout;
}

/** Sends unless the channel is closed; a send that fails as it closes is ignored (the callback takes the error). */
const trySend = (w: Worker, msg: ChangeHeld | ChangeToApply): boolean => {
  if (!w.isConnected()) return false;
  try {
    w.send(msg, undefined, {}, () => {});
    return true;
  } catch {
    return false;
  }
};

/** In the primary, before the workers are forked. */
export function relayCredentialChanges(): void {
  const applying = new Set<Worker>();
  const relayed = new Map<number, Relayed>();
  let next = 0;

  const settle = (relayId: number): void => {
    const r = relayed.get(relayId);
    if (!r) return;
    clearTimeout(r.timer);
    relayed.delete(relayId);
    trySend(r.origin, { t: 'tradeseal:change-held', id: r.id, unconfirmed: [...r.waiting].map((w) => w.process.pid ?? -1) });
  };
  const settleIfDone = (relayId: number): void => {
    if (relayed.get(relayId)?.waiting.size === 0) settle(relayId);
  };

  cluster.on('message', (worker: Worker, msg: unknown) => {
    if (!isChangeMessageToPrimary(msg)) return;
    const m = msg as ChangeMessageToPrimary;
    if (m.t === 'tradeseal:changes-ready') {
      applying.add(worker);
    } else if (m.t === 'tradeseal:change?') {
      const relayId = next++;
      const targets = [...applying].filter((w) => w !== worker && w.isConnected());
      const within = Number.isFinite(m.within_ms) ? Math.max(0, m.within_ms) : 0;
      const r: Relayed = { origin: worker, id: m.id, waiting: new Set(targets), timer: setTimeout(() => settle(relayId), within) };
      r.timer.unref();
      relayed.set(relayId, r);
      // A worker that cannot be sent to stays waited for until it exits or the time is up.
      for (const w of targets) trySend(w, { t: 'tradeseal:change', id: relayId, change: m.change });
      settleIfDone(relayId);
    } else {
      relayed.get(m.id)?.waiting.delete(worker);
      settleIfDone(m.id);
    }
  });

  cluster.on('exit', (worker: Worker) => {
    applying.delete(worker);
    for (const [relayId, r] of relayed) {
      if (r.origin === worker) {
        clearTimeout(r.timer);
        relayed.delete(relayId);
      } else if (r.waiting.delete(worker)) {
        settleIfDone(relayId);
      }
    }
  });
}

const sendToPrimary = (msg: ChangeMessageToPrimary): boolean => {
  if (!process.send || !process.connected) return false;
  try {
    process.send(msg, undefined, {}, () => {});
    return true;
  } catch {
    return false;
  }
};

const PRIMARY_GRACE_MS = 50;

/** In a worker, before its server is built: the worker's siblings, through the primary. */
export function joinCredentialChanges(): Siblings {
  let apply: ApplyChange | null = null;
  let next = 0;
  const waiting = new Map<number, (unconfirmed: string[]) => void>();
  process.on('message', (msg: unknown) => {
    if (!isChangeMessageToWorker(msg)) return;
    if (msg.t === 'tradeseal:change') {
      // Before this worker's server exists there is nothing cached to drop: confirmed at once.
      apply?.(decodeChange(msg.change));
      sendToPrimary({ t: 'tradeseal:change-applied', id: msg.id } satisfies ChangeApplied);
    } else {
      waiting.get(msg.id)?.(Array.isArray(msg.unconfirmed) ? msg.unconfirmed.map((pid) => `worker ${pid}`) : ['the primary (an unreadable answer)']);
    }
  });
  sendToPrimary({ t: 'tradeseal:changes-ready' });
  return {
    receive(fn) {
      apply = fn;
    },
    tell(change: CredentialChange, deadline: number) {
      return new Promise<string[]>((resolve) => {
        const id = next++;
        const within = Math.max(0, deadline - Date.now());
        const done = (unconfirmed: string[]): void => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(unconfirmed);
        };
        // A little past the primary's own wait, so that its answer, naming the silent workers, normally comes first.
        const timer = setTimeout(() => done(['the primary (no answer)']), within + PRIMARY_GRACE_MS);
        waiting.set(id, done);
        const request: ChangeRequest = { t: 'tradeseal:change?', id, change, within_ms: within };
        if (!sendToPrimary(request)) done(['the primary (its channel is closed)']);
      });
    },
  };
}
