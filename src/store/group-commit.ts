/**
 * Group commit: concurrent writes of one kind, made by one process, go to the store as one multi-row
 * statement (one round trip, one commit) while each caller keeps its own outcome.
 *
 * The batching is natural, never timed: a write submitted while fewer than `maxInFlight` batches are under way
 * is sent at once, alone if it is alone, so an idle engine answers exactly as fast as without batching; writes
 * that arrive while every slot is busy wait for the next free slot and then go together (at most `maxBatch`).
 * So batches grow only with load, and no request is held back to wait for others.
 *
 * The writes of one key (`keyOf`: an agent, a trace) are written in the order they were submitted: a key with a
 * batch under way holds its later writes until that batch ends, and once one write of a key is left for a later
 * batch so are the writes of that key behind it. Two writes of one key share a batch only when `mayShare` says the
 * statement gives each the answer it would get written alone after the earlier ones (the default: never; one
 * statement may not upsert a row twice). Within a batch the writes are handed over sorted by key, each key's in
 * submission order, so concurrent batches take their row locks in one order. When a batch of several writes fails
 * as a whole, each of its writes is retried alone (one key's writes one after another, in order), so one bad write
 * fails only itself and every caller gets its own answer.
 */

export interface GroupCommitOptions<I, O> {
  /** Writes the batch in one statement; returns one outcome per item, in the items' order. */
  write: (items: readonly I[]) => Promise<O[]>;
  /** Items of one key are written in submission order; within a batch, keys are in order. */
  keyOf: (item: I) => string;
  /**
   * Whether `item` may join a batch that already holds `earlier` (its key's writes, in submission order): true
   * only when the statement answers it exactly as if written alone after them. Default: never.
   */
  mayShare?: (item: I, earlier: readonly I[]) => boolean;
  maxBatch: number;
  maxInFlight: number;
}

interface Waiting<I, O> {
  item: I;
  key: string;
  resolve: (outcome: O) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit<I, O> {
  private readonly queue: Waiting<I, O>[] = [];
  private inFlight = 0;
  /** Keys with a batch under way: their later writes wait for it. */
  private readonly busy = new Map<string, number>();
  /** Batches written and items they carried, for the benchmark and tests. */
  readonly stats = { batches: 0, items: 0, retriedAlone: 0 };

  constructor(private readonly options: GroupCommitOptions<I, O>) {
    if (!(options.maxBatch >= 1 && options.maxInFlight >= 1)) throw new RangeError('maxBatch and maxInFlight must be at least 1');
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, key: this.options.keyOf(item), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const batch = this.take();
      // Every waiting write's key has a batch under way: the next to end pumps again.
      if (batch.length === 0) return;
      const keys = [...new Set(batch.map((w) => w.key))];
      for (const k of keys) this.busy.set(k, (this.busy.get(k) ?? 0) + 1);
      this.inFlight++;
      void this.run(batch).finally(() => {
        for (const k of keys) {
          const n = (this.busy.get(k) ?? 1) - 1;
          if (n === 0) this.busy.delete(k);
          else this.busy.set(k, n);
        }
        this.inFlight--;
        this.pump();
      });
    }
  }

  /**
   * The oldest waiting writes, at most maxBatch: of a key with no batch under way, its oldest, and the ones behind
   * it that `mayShare` admits up to the first it does not. The rest keep their places.
   */
  private take(): Waiting<I, O>[] {
    const batch: Waiting<I, O>[] = [];
    const taken = new Map<string, I[]>();
    const held = new Set<string>(this.busy.keys());
    const rest: Waiting<I, O>[] = [];
    for (const w of this.queue) {
      const earlier = taken.get(w.key);
      const joins = batch.length < this.options.maxBatch && !held.has(w.key) && (earlier === undefined || (this.options.mayShare?.(w.item, earlier) ?? false));
      if (!joins) {
        held.add(w.key);
        rest.push(w);
        continue;
      }
      if (earlier) earlier.push(w.item);
      else taken.set(w.key, [w.item]);
      batch.push(w);
    }
    this.queue.splice(0, this.queue.length, ...rest);
    // A stable sort: one key's writes keep their submission order.
    return batch.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private async run(batch: Waiting<I, O>[]): Promise<void> {
    this.stats.batches++;
    this.stats.items += batch.length;
    try {
      const outcomes = await this.options.write(batch.map((w) => w.item));
      if (outcomes.length !== batch.length) throw new Error(`a batch of ${batch.length} writes returned ${outcomes.length} outcomes`);
      batch.forEach((w, i) => w.resolve(outcomes[i] as O));
    } catch (err) {
      if (batch.length === 1) {
        (batch[0] as Waiting<I, O>).reject(err);
        return;
      }
      // The statement failed as a whole: nothing of it was committed. Each write again, alone; a key's in order.
      this.stats.retriedAlone += batch.length;
      const byKey = new Map<string, Waiting<I, O>[]>();
      for (const w of batch) byKey.set(w.key, [...(byKey.get(w.key) ?? []), w]);
      await Promise.all(
        [...byKey.values()].map(async (ws) => {
          for (const w of ws) {
            try {
              const [outcome] = await this.options.write([w.item]);
              w.resolve(outcome as O);
            } catch (e) {
              w.reject(e);
            }
          }
        }),
      );
    }
  }
}
