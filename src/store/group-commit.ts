/**
 * Group commit: concurrent writes of one kind, made by one process, go to the store as one multi-row
 * statement (one round trip, one commit) while each caller keeps its own outcome.
 *
 * The batching is natural, never timed: a write submitted while fewer than `maxInFlight` batches are under way
 * is sent at once, alone if it is alone, so an idle engine answers exactly as fast as without batching; writes
 * that arrive while every slot is busy wait for the next free slot and then go together (at most `maxBatch`).
 * So batches grow only with load, and no request is held back to wait for others.
 *
 * Two writes with the same `keyOf` never share a batch (one statement may not upsert a row twice, and rows of one
 * key are ordered), and within a batch the writes are handed over sorted by key, so concurrent batches take their
 * row locks in one order. When a batch of several writes fails as a whole, each of its writes is retried
 * alone, so one bad write fails only itself and every caller gets its own answer.
 */

export interface GroupCommitOptions<I, O> {
  /** Writes the batch in one statement; returns one outcome per item, in the items' order. */
  write: (items: readonly I[]) => Promise<O[]>;
  /** Items with the same key never share a batch; batches are written in key order. */
  keyOf: (item: I) => string;
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
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** The oldest waiting writes, at most one per key and at most maxBatch; the rest keep their places. */
  private take(): Waiting<I, O>[] {
    const batch: Waiting<I, O>[] = [];
    const keys = new Set<string>();
    let i = 0;
    while (i < this.queue.length && batch.length < this.options.maxBatch) {
      const w = this.queue[i] as Waiting<I, O>;
      if (keys.has(w.key)) {
        i++;
        continue;
      }
      keys.add(w.key);
      batch.push(w);
      this.queue.splice(i, 1);
    }
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
      // The statement failed as a whole: nothing of it was committed. Each write again, alone.
      this.stats.retriedAlone += batch.length;
      await Promise.all(
        batch.map(async (w) => {
          try {
            const [outcome] = await this.options.write([w.item]);
            w.resolve(outcome as O);
          } catch (e) {
            w.reject(e);
          }
        }),
      );
    }
  }
}
