/**
 * The inbound watermark (src/engine/dropcopy/watermark.ts): the lowest inbound seqnum not yet handled, which
 * stops at a gap however many messages past it arrive, and moves past them all when the gap is filled.
 */
import { describe, expect, it } from 'vitest';
import { InboundWatermark } from '../../../src/engine/dropcopy/watermark.js';

describe('InboundWatermark', () => {
  it('advances one seqnum at a time when messages arrive in order', () => {
    const w = new InboundWatermark(1);
    for (let seq = 1; seq <= 5; seq++) w.seen(seq);
    expect(w.next).toBe(6);
    expect(w.gapOpen).toBe(false);
  });

  it('stops at a gap while messages past it arrive first, and jumps past them when the resend fills it', () => {
    const w = new InboundWatermark(10);
    w.seen(10);
    for (const seq of [13, 14, 15, 17]) w.seen(seq);
    expect(w.next).toBe(11);
    expect(w.gapOpen).toBe(true);
    w.seen(12);
    expect(w.next).toBe(11);
    w.seen(11);
    expect(w.next).toBe(16);
    w.seen(16);
    expect(w.next).toBe(18);
    expect(w.gapOpen).toBe(false);
  });

  it('takes seqnums past a gap in any order', () => {
    const w = new InboundWatermark(1);
    for (const seq of [9, 3, 7, 5, 8, 4, 6, 2]) w.seen(seq);
    expect(w.next).toBe(1);
    w.seen(1);
    expect(w.next).toBe(10);
  });

  it('handles a whole range with a gap fill, including one that overlaps handled seqnums', () => {
    const w = new InboundWatermark(5);
    w.seen(20);
    w.gapFilled(5, 12);
    expect(w.next).toBe(12);
    w.gapFilled(10, 20); // reaches back below the watermark and up to the seqnum handled past it
    expect(w.next).toBe(21);
    w.gapFilled(30, 1_000_000);
    expect(w.next).toBe(21);
    w.gapFilled(21, 30);
    expect(w.next).toBe(1_000_000);
  });

  it('ignores a gap fill that handles nothing (NewSeqNo not above its own seqnum is one seqnum)', () => {
    const w = new InboundWatermark(3);
    w.gapFilled(3, 3);
    expect(w.next).toBe(4);
    w.gapFilled(1, 2);
    expect(w.next).toBe(4);
  });

  it('changes nothing on duplicates, below the watermark or past it', () => {
    const w = new InboundWatermark(1);
    w.seen(1);
    w.seen(2);
    w.seen(1);
    w.seen(2);
    expect(w.next).toBe(3);
    w.seen(5);
    w.seen(5);
    expect(w.next).toBe(3);
    w.seen(3);
    w.seen(4);
    expect(w.next).toBe(6);
  });

  it('starts over on a reset, forgetting what was handled past a gap in the old numbering', () => {
    const w = new InboundWatermark(100);
    w.seen(100);
    w.seen(105);
    w.reset(1);
    expect(w.next).toBe(1);
    expect(w.gapOpen).toBe(false);
    w.seen(1);
    expect(w.next).toBe(2);
    w.reset(50); // SequenceReset-Reset forward
    w.seen(50);
    expect(w.next).toBe(51);
  });

  it('refuses seqnums that are not whole numbers from 1', () => {
    expect(() => new InboundWatermark(0)).toThrow(RangeError);
    expect(() => new InboundWatermark(1).seen(0)).toThrow(RangeError);
    expect(() => new InboundWatermark(1).seen(1.5)).toThrow(RangeError);
    expect(() => new InboundWatermark(1).reset(-1)).toThrow(RangeError);
  });
});
