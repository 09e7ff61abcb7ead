/** An inbound message's fields → a fill, a handled message, or the FIX answer it gets (src/engine/dropcopy/fix-fields.ts). */
import { describe, expect, it } from 'vitest';
import { frameIsSound, frameProblemOf, frameProblemRead, readInbound, type InboundMessage } from '../../../src/engine/dropcopy/fix-fields.js';
import { fixMessage } from '../../helpers/fix-message.js';

const AGENT = '0b6f3c1e-8f7a-4c2d-9e1b-5a4d3c2b1a09';
const receivedAt = new Date('2026-02-03T10:05:00.100Z');

function er(overrides: Record<number, string | null> = {}, msgType = '8'): InboundMessage {
  const tags = new Map<number, string>(
    Object.entries({
      17: 'X-1',
      11: 'C-1',
      150: 'F',
      1: AGENT,
      55: 'AAPL',
      54: '1',
      32: '100',
      31: '190.25',
      15: 'USD',
      60: '20260203-10:04:59.412',
    }).map(([t, v]) => [Number(t), v]),
  );
  for (const [t, v] of Object.entries(overrides)) {
    if (v === null) tags.delete(Number(t));
    else tags.set(Number(t), v);
  }
  return { msgType, seq: 7, possDup: false, receivedAt, tags };
}

describe('readInbound', () => {
  it('maps a fill to a drop-copy execution as the FIX log does', () => {
    expect(readInbound(er())).toEqual({
      kind: 'fill',
      fill: {
        seq: 7,
        possDup: false,
        receivedAt,
        execution: {
          exchange_tx_id: 'X-1',
          client_order_id: 'C-1',
          asset: 'AAPL',
          side: 'Long',
          quantity: 100,
          price: 190.25,
          notional_currency: 'USD',
          agent_id: AGENT,
          execution_time: '2026-02-03T10:04:59.412Z',
        },
      },
    });
    expect(readInbound(er({ 54: '5', 11: null, 15: null }))).toMatchObject({ kind: 'fill', fill: { execution: { side: 'Short' } } });
  });

  it('answers a missing required tag with Reject 373=1 naming it', () => {
    for (const tag of [17, 55, 54, 32, 31, 60, 1, 150]) {
      expect(readInbound(er({ [tag]: null })), String(tag)).toMatchObject({ kind: 'refuse', answer: 'reject', reasonCode: 1, refTag: tag });
    }
  });

  it('answers a value out of range with 373=5 and a value of the wrong form with 373=6', () => {
    expect(readInbound(er({ 54: '3' }))).toMatchObject({ answer: 'reject', reasonCode: 5, refTag: 54 });
    expect(readInbound(er({ 32: '0' }))).toMatchObject({ answer: 'reject', reasonCode: 5, refTag: 32 });
    expect(readInbound(er({ 31: 'abc' }))).toMatchObject({ answer: 'reject', reasonCode: 6, refTag: 31 });
    expect(readInbound(er({ 60: '2026-02-03T10:04:59Z' }))).toMatchObject({ answer: 'reject', reasonCode: 6, refTag: 60 });
    expect(readInbound(er({ 60: '20260230-10:04:59' }))).toMatchObject({ answer: 'reject', reasonCode: 6, refTag: 60 });
    expect(readInbound(er({ 15: 'usd' }))).toMatchObject({ answer: 'reject', reasonCode: 5, refTag: 15 });
    expect(readInbound(er({ 17: 'x'.repeat(129) }))).toMatchObject({ answer: 'reject', reasonCode: 5, refTag: 17 });
  });

  it('takes a TradeDate (75) that names a day, and refuses one that names none, naming tag 75: no year 0000, no 30 February', () => {
    expect(readInbound(er({ 75: '20260204' }))).toMatchObject({ kind: 'fill', fill: { execution: { trade_date: '20260204' } } });
    // Year 0000 has no date in PostgreSQL: taken, it would fail its batch, and the resends with it, for ever.
    expect(readInbound(er({ 75: '00000101' }))).toMatchObject({ answer: 'reject', reasonCode: 5, refTag: 75 });
    expect(readInbound(er({ 75: '20260230' }))).toMatchObject({ answer: 'reject', reasonCode: 5, refTag: 75 });
    expect(readInbound(er({ 75: '2026024' }))).toMatchObject({ answer: 'reject', reasonCode: 6, refTag: 75 });
  });

  it('answers a byte outside printable ASCII in a field it reads with Reject 373=6 naming the tag, before any other check', () => {
    // As the session reads a value: one character per byte received (0xC9 is \u00c9).
    expect(readInbound(er({ 55: 'AAP\u00c9' }))).toEqual({
      kind: 'refuse',
      answer: 'reject',
      reasonCode: 6,
      refTag: 55,
      text: 'Symbol (55) holds a byte outside printable ASCII (0xc9 at position 4): a FIX String field is ASCII',
    });
    expect(readInbound(er({ 55: 'AA\x1bL' }))).toMatchObject({ reasonCode: 6, refTag: 55 });
    expect(readInbound(er({ 1: 'ACCT-\u00ff', 54: '9' }))).toMatchObject({ answer: 'reject', reasonCode: 6, refTag: 1 });
    expect(readInbound(er({ 11: 'C\x7f' }))).toMatchObject({ reasonCode: 6, refTag: 11 });
    expect(readInbound(er({}, '\u00c8'))).toMatchObject({ answer: 'reject', reasonCode: 6, refTag: 35 });
  });

  it('answers an Account that is no agent id with a BusinessMessageReject', () => {
    const verdict = readInbound(er({ 1: 'ACCT-7' }));
    expect(verdict).toMatchObject({ kind: 'refuse', answer: 'business_reject', reasonCode: 0, refTag: 1 });
    expect((verdict as { text: string }).text).toContain('ACCT-7');
  });

  it('leaves ExecutionReports that are not fills alone, and refuses trade corrections, cancels and other messages', () => {
    expect(readInbound(er({ 150: '0' }))).toEqual({ kind: 'handled' });
    expect(readInbound(er({ 150: 'G' }))).toMatchObject({ answer: 'business_reject', reasonCode: 0, refTag: 150 });
    expect(readInbound(er({ 150: 'H' }))).toMatchObject({ answer: 'business_reject', reasonCode: 0, refTag: 150 });
    expect(readInbound(er({}, 'D'))).toMatchObject({ answer: 'business_reject', reasonCode: 3, refTag: null });
  });
});

describe('frameProblemOf', () => {
  const good = fixMessage([
    [35, '0'],
    [49, 'XNAS'],
    [56, 'DESK'],
    [34, 2],
    [52, '20260203-10:05:00.000'],
  ]);
  it('passes a well-framed message', () => {
    expect(frameProblemOf(good)).toBeNull();
  });
  it('names garbage before BeginString, a wrong BodyLength and a wrong CheckSum', () => {
    expect(frameProblemOf(`junk\n${good}`)).toContain('before BeginString');
    expect(frameProblemOf(good.replace(/\x019=\d+\x01/, '\x019=99\x01'))).toContain('BodyLength');
    expect(frameProblemOf(good.replace(/10=\d{3}\x01$/, '10=000\x01'))).toContain('CheckSum');
  });
  it('sums the bytes received: a byte above 0x7F counts as itself', () => {
    const high = fixMessage([
      [35, '8'],
      [49, 'XNAS'],
      [56, 'DESK'],
      [34, 2],
      [55, 'AAP\u00c9'],
    ]);
    expect(frameIsSound(high)).toBe(true);
    expect(frameProblemOf(high)).toBeNull();
    // The same message with the high bit lost, as Node's 'ascii' decoding reads it: 128 off.
    expect(frameProblemOf(high.replace('\u00c9', 'I'))).toContain('CheckSum');
  });
  it('takes a data field by its length: an Encoded* value may hold any byte, SOH included', () => {
    const encoded = fixMessage([
      [35, '8'],
      [49, 'XNAS'],
      [56, 'DESK'],
      [34, 2],
      [347, 'UTF-8'],
      [354, 5],
      [355, 'a\x01\u00c3\u00a9b'],
    ]);
    expect(frameIsSound(encoded)).toBe(true);
    expect(frameProblemRead(encoded)).toBeNull();
    expect(frameProblemRead(encoded.replace('354=5', '354=7'))).toContain('355');
  });
});

describe('frameIsSound, the one-pass check of frameProblemOf', () => {
  // A seeded generator (mulberry32), so a failure names a reproducible case.
  let seed = 20261128;
  const random = (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const CHARS = ['0', '1', '9', '=', '|', 'A', 'z', ' ', '.', '-', '\u00e9', '\u00ff', '\x01'];
  const mutate = (text: string): string => {
    const i = Math.floor(random() * text.length);
    switch (Math.floor(random() * 4)) {
      case 0:
        return text.slice(0, i) + text.slice(i + 1);
      case 1:
        return text.slice(0, i) + pick(CHARS) + text.slice(i);
      case 2:
        return text.slice(0, i) + pick(CHARS) + text.slice(i + 1);
      default:
        return text.slice(0, i) + text.slice(i, i + 5) + text.slice(i);
    }
  };
  const message = (): string => {
    const fields: Array<[number, string | number]> = [
      [35, pick(['8', '0', 'D', 'j'])],
      [49, 'XNAS'],
      [56, 'DESK'],
      [34, Math.floor(random() * 1e6)],
    ];
    for (let k = Math.floor(random() * 8); k > 0; k--)
      fields.push([
        pick([17, 11, 55, 54, 32, 31, 60, 1, 9999, 123456]),
        pick(['X-1', '190.25', '20260203-10:04:59.412', 'AAPL', '', '1', 'a=b', 'caf\u00e9', '\u00a45']),
      ]);
    if (random() < 0.3) fields.push([354, 4], [355, pick(['a\x01=b', '\u00e9\u00e9\x01\x01', 'abcd'])]);
    return fixMessage(fields);
  };

  it('accepts only what the general reading accepts, and nearly all of it: 2,000 messages and 20,000 of their mutations', () => {
    let sound = 0;
    let fast = 0;
    let unsound = 0;
    for (let k = 0; k < 2000; k++) {
      let text = message();
      for (let m = 0; m <= 10; m++) {
        const general = frameProblemRead(text);
        const quick = frameIsSound(text);
        if (quick) expect(general, `${JSON.stringify(text)} passed the one-pass check`).toBeNull();
        expect(frameProblemOf(text)).toBe(general);
        if (general === null) sound += 1;
        else unsound += 1;
        if (quick) fast += 1;
        text = mutate(text);
      }
    }
    // Both verdicts were exercised many times; the one-pass check settles nearly every sound frame.
    expect(sound).toBeGreaterThan(2000);
    expect(unsound).toBeGreaterThan(10_000);
    expect(fast / sound).toBeGreaterThan(0.99);
  });
});
