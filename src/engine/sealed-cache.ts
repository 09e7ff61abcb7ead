/**
 * What a process sealed of its recent traces, for bind's short path: the fields a bind decides by (agent,
 * intent, authorization time, reasoning hash) and the state it was sealed in. An exchange confirms an order
 * seconds after it was authorized, usually through the process that authorized it; such a bind needs no read.
 *
 * It is a hint, never an authority. The fields a bind decides by never change after the seal; the ones that
 * do (bound or not, expired or not) are the condition of bind's update (src/engine/store/traces.ts
 * `applyBinds`: unbound, and in the status the decision saw), so a trace bound by another process, expired by
 * the sweeper, or sealed by a transaction that did not commit matches nothing; the bind then reads the trace
 * and decides again, as it does for a trace it does not know. An entry is dropped when its bind is tried.
 *
 * The traces are kept in a ring of fixed slots (typed arrays for the hashes, ids and numbers), so that tens of
 * thousands of them are a few megabytes and a few objects for the garbage collector, not a few per trace.
 */
import type { BindRead, NewTrace } from './store/traces.js';
import { monthPartition } from './store/traces.js';

/** At most this many traces a process (about 0.2 KB each), the oldest dropped first. */
export const SEALED_CACHE_MAX = 20_000;

const HASH = /^[0-9a-f]{64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const STATUSES: ReadonlyArray<NewTrace['status']> = ['PENDING', 'SHADOW_HALTED'];

export class SealedTraces {
  /** Trace id (lower case) → its slot. */
  private readonly slots = new Map<string, number>();
  private readonly keys: Array<string | undefined>;
  private readonly times: Float64Array;
  private readonly quantities: Float64Array;
  private readonly statuses: Uint8Array;
  private readonly hashes: Uint8Array;
  private readonly agents: Uint8Array;
  private readonly actions: Array<string | undefined>;
  private readonly assets: Array<string | undefined>;
  private next = 0;

  constructor(private readonly max = SEALED_CACHE_MAX) {
    this.keys = new Array<string | undefined>(max).fill(undefined);
    this.actions = new Array<string | undefined>(max).fill(undefined);
    this.assets = new Array<string | undefined>(max).fill(undefined);
    this.times = new Float64Array(max);
    this.quantities = new Float64Array(max);
    this.statuses = new Uint8Array(max);
    this.hashes = new Uint8Array(max * 32);
    this.agents = new Uint8Array(max * 16);
  }

  /** Keeps a trace this process has just sealed (committed); a trace whose ids are not in the stored form is not kept. */
  remember(t: NewTrace): void {
    const agent = t.agent_id.toLowerCase();
    if (this.max <= 0 || !HASH.test(t.reasoning_hash) || !UUID.test(agent)) return;
    const slot = this.next;
    this.next = (slot + 1) % this.max;
    const evicted = this.keys[slot];
    if (evicted !== undefined) this.slots.delete(evicted);
    const key = t.trace_id.toLowerCase();
    const earlier = this.slots.get(key);
    if (earlier !== undefined) this.keys[earlier] = undefined;
    this.slots.set(key, slot);
    this.keys[slot] = key;
    this.times[slot] = t.txn_time.getTime();
    this.quantities[slot] = t.quantity;
    this.statuses[slot] = STATUSES.indexOf(t.status);
    this.hashes.set(Buffer.from(t.reasoning_hash, 'hex'), slot * 32);
    this.agents.set(Buffer.from(agent.replaceAll('-', ''), 'hex'), slot * 16);
    this.actions[slot] = t.action;
    this.assets[slot] = t.asset;
  }

  /** The trace as sealed, in the form a bind reads it, and forgotten; null when this process does not know it. */
  take(traceId: string): BindRead | null {
    const key = traceId.toLowerCase();
    const slot = this.slots.get(key);
    if (slot === undefined) return null;
    this.slots.delete(key);
    this.keys[slot] = undefined;
    const txnTime = new Date(this.times[slot] as number);
    const agentHex = Buffer.from(this.agents.subarray(slot * 16, slot * 16 + 16)).toString('hex');
    return {
      trace_id: key,
      txn_time: txnTime,
      agent_id: `${agentHex.slice(0, 8)}-${agentHex.slice(8, 12)}-${agentHex.slice(12, 16)}-${agentHex.slice(16, 20)}-${agentHex.slice(20)}`,
      status: STATUSES[this.statuses[slot] as number] as NewTrace['status'],
      verification_status: 'Pending',
      action: this.actions[slot] as string,
      asset: this.assets[slot] as string,
      quantity: this.quantities[slot] as number,
      reasoning_hash: Buffer.from(this.hashes.subarray(slot * 32, slot * 32 + 32)).toString('hex'),
      final_proof: null,
      exchange_tx_id: null,
      execution_status: null,
      execution_time: null,
      divergence_reason: null,
      part: monthPartition(txnTime),
    };
  }
}
