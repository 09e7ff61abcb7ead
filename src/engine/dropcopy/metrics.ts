/**
 * What the FIX drop-copy session records in the server's metrics, and the relay of those records from the
 * session's own thread (thread.ts) to the registry of the process that serves `/metrics`.
 *
 * The session needs four of ServerMetrics' instruments; `DropCopyMetrics` names just those, so the session runs
 * the same with the registry itself (in the server's thread) or with `relayMetrics` (in a worker thread), whose
 * records are posted in one message per turn of the worker's event loop and applied by `applyMetricOps`.
 */
import type { FillOutcome } from './outcome.js';

export interface DropCopyMetrics {
  readonly dropCopyFills: { inc(labels: { outcome: FillOutcome }): void };
  readonly dropCopyRejects: { inc(labels: { answer: string }): void };
  readonly dropCopyLoggedOn: { set(value: number): void };
  readonly dropCopyDelay: { observe(seconds: number): void };
}

/** One record: a fill by outcome, a delay in seconds, a refused message by answer, the logged-on gauge. */
export type MetricOp = ['fill', FillOutcome] | ['delay', number] | ['reject', string] | ['logged_on', number];

/** Records into `ops`, handed to `post` together once the current turn of the event loop ends. */
export function relayMetrics(post: (ops: MetricOp[]) => void): DropCopyMetrics & { flush(): void } {
  let ops: MetricOp[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (ops.length === 0) return;
    const out = ops;
    ops = [];
    post(out);
  };
  const add = (op: MetricOp): void => {
    ops.push(op);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return {
    dropCopyFills: { inc: ({ outcome }) => add(['fill', outcome]) },
    dropCopyRejects: { inc: ({ answer }) => add(['reject', answer]) },
    dropCopyLoggedOn: { set: (value) => add(['logged_on', value]) },
    dropCopyDelay: { observe: (seconds) => add(['delay', seconds]) },
    flush,
  };
}

/** Applies relayed records to the registry's instruments, in the order they were made. */
export function applyMetricOps(metrics: DropCopyMetrics, ops: readonly MetricOp[]): void {
  for (const op of ops) {
    if (op[0] === 'fill') metrics.dropCopyFills.inc({ outcome: op[1] });
    else if (op[0] === 'delay') metrics.dropCopyDelay.observe(op[1]);
    else if (op[0] === 'reject') metrics.dropCopyRejects.inc({ answer: op[1] });
    else metrics.dropCopyLoggedOn.set(op[1]);
  }
}
