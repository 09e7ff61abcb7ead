/**
 * The acceptor's door (src/engine/dropcopy/logon-gate.ts) read by itself, on a stream standing in for the socket:
 * what it costs to read a first message sent a byte at a time.
 */
import { PassThrough } from 'node:stream';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { awaitLogon, MAX_LOGON_BYTES } from '../../../src/engine/dropcopy/logon-gate.js';
import { fixMessage } from '../../helpers/fix-message.js';

const parties = { senderCompId: 'DESK', targetCompId: 'XNAS' };

afterEach(() => vi.restoreAllMocks());

describe('the door', () => {
  it('reads a Logon of nearly MAX_LOGON_BYTES sent one byte at a time copying its bytes a bounded number of times, not once per byte', async () => {
    const logon = fixMessage([
      [35, 'A'],
      [49, 'XNAS'],
      [56, 'DESK'],
      [34, 1],
      [52, '20261207-09:00:00.000'],
      [98, 0],
      [108, 30],
      [58, 'x'.repeat(MAX_LOGON_BYTES - 200)],
    ]);
    expect(logon.length).toBeGreaterThan(MAX_LOGON_BYTES - 200);
    expect(logon.length).toBeLessThanOrEqual(MAX_LOGON_BYTES);
    const socket = new PassThrough();
    const refused: string[] = [];
    const passed = awaitLogon(socket as unknown as Socket, { parties, timeoutMs: 60_000, now: () => new Date(), onRefused: (r) => refused.push(r.reason) });
    const concat = vi.spyOn(Buffer, 'concat');
    const bytes = Buffer.from(logon, 'latin1');
    for (let i = 0; i < bytes.length; i++) socket.emit('data', bytes.subarray(i, i + 1));
    expect(await passed).toBe(true);
    expect(refused).toEqual([]);
    const copied = concat.mock.results.reduce((sum, r) => sum + (r.value as Buffer).length, 0);
    // Joined to read the head, then once whole (and once to put it back): a few times its length, not ~n²/2.
    expect(copied).toBeLessThan(4 * bytes.length);
    concat.mockRestore();
    // Every byte is put back, in order, for the session to read.
    expect((socket.read() as Buffer).toString('latin1')).toBe(logon);
  });

  it('reads a Logon that arrives in one read, and one split after its head', async () => {
    const logon = fixMessage([
      [35, 'A'],
      [49, 'XNAS'],
      [56, 'DESK'],
      [34, 1],
      [52, '20261207-09:00:00.000'],
      [98, 0],
      [108, 30],
    ]);
    for (const cuts of [[logon.length], [40, logon.length]]) {
      const socket = new PassThrough();
      const passed = awaitLogon(socket as unknown as Socket, { parties, timeoutMs: 60_000, now: () => new Date(), onRefused: () => {} });
      let at = 0;
      for (const cut of cuts) {
        socket.emit('data', Buffer.from(logon.slice(at, cut), 'latin1'));
        at = cut;
      }
      expect(await passed).toBe(true);
      expect((socket.read() as Buffer).toString('latin1')).toBe(logon);
    }
  });
});
