/**
 * The inbound watermark of the FIX drop-copy session: the lowest inbound MsgSeqNum not yet handled. Every
 * seqnum below it has been handled, so it is what the store may record as `next_target_seq`, and where a
 * restarted session resumes (the peer resends from there).
 *
 * Handled seqnums are not contiguous in the order they arrive: after a gap the session forwards the messages
 * past the gap before the peer's resend fills it, so the watermark stops at the gap and the seqnums handled
 * beyond it are kept, as disjoint ranges, until the gap closes. A SequenceReset-GapFill handles a whole range
 * at once (`gapFilled`); a reset of the numbering (Logon 141=Y, SequenceReset-Reset) starts over (`reset`).
 * Pure: no I/O.
 */

/** A half-open range [from, to) of handled seqnums above the watermark. */
interface Range {
  from: number;
  to: number;
}

export class InboundWatermark {
  #next: number;
  /** Disjoint, not adjacent, sorted, every `from` above `#next`. */
  #above: Range[] = [];

  constructor(next: number) {
    if (!Number.isSafeInteger(next) || next < 1) throw new RangeError(`the watermark must be a whole number >= 1, got ${next}`);
    this.#next = next;
  }

  /** The lowest inbound seqnum not yet handled. */
  get next(): number {
    return this.#next;
  }

  /** Whether seqnums above the watermark are handled while one below them is not (a gap is open). */
  get gapOpen(): boolean {
    return this.#above.length > 0;
  }

  /** Marks `seq` handled. A seqnum handled before (a duplicate or a resend) changes nothing. */
  seen(seq: number): void {
    this.#mark(seq, seq + 1);
  }

  /** A SequenceReset-GapFill received as `seq` with NewSeqNo `newSeqNo`: [seq, newSeqNo) handled. */
  gapFilled(seq: number, newSeqNo: number): void {
    this.#mark(seq, Math.max(newSeqNo, seq + 1));
  }

  /** The numbering starts over: the next inbound seqnum is `nextSeq`, and nothing above it is handled yet. */
  reset(nextSeq: number): void {
    if (!Number.isSafeInteger(nextSeq) || nextSeq < 1) throw new RangeError(`the next inbound seqnum must be a whole number >= 1, got ${nextSeq}`);
    this.#next = nextSeq;
    this.#above = [];
  }

  #mark(from: number, to: number): void {
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 1) throw new RangeError(`not a range of seqnums: [${from}, ${to})`);
    from = Math.max(from, this.#next);
    if (to <= from) return;
    // Messages mostly arrive in order, so the new range usually belongs at the end: search from there.
    let i = this.#above.length;
    while (i > 0 && (this.#above[i - 1] as Range).from > from) i -= 1;
    // Merge with the range before (overlapping or adjacent) and every range after that it reaches.
    let start = i;
    if (start > 0 && (this.#above[start - 1] as Range).to >= from) start -= 1;
    let end = i;
    while (end < this.#above.length && (this.#above[end] as Range).from <= to) end += 1;
    const merged: Range = { from, to };
    for (let k = start; k < end; k++) {
      const r = this.#above[k] as Range;
      merged.from = Math.min(merged.from, r.from);
      merged.to = Math.max(merged.to, r.to);
    }
    this.#above.splice(start, end - start, merged);
    const first = this.#above[0] as Range;
    if (first.from === this.#next) {
      this.#next = first.to;
      this.#above.shift();
    }
  }
}
