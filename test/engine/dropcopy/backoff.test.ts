/** The initiator's wait before connecting again (src/engine/dropcopy/backoff.ts) and the FIX engine's repaired decoding (load.ts). */
import { describe, expect, it } from 'vitest';
import { reconnectDelayMs } from '../../../src/engine/dropcopy/backoff.js';
import { assertBytesKept, loadFix } from '../../../src/engine/dropcopy/load.js';

describe('reconnectDelayMs', () => {
  it('doubles with each failure in a row from FIX_DROPCOPY_RECONNECT_S, bounded by FIX_DROPCOPY_RECONNECT_MAX_S, drawn between half and all of it', () => {
    const top = (failures: number) => reconnectDelayMs(failures, 2, 60, () => 1);
    const bottom = (failures: number) => reconnectDelayMs(failures, 2, 60, () => 0);
    expect([1, 2, 3, 4, 5, 6, 7, 50].map(top)).toEqual([2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    expect([1, 2, 6].map(bottom)).toEqual([1000, 2000, 30_000]);
    expect(reconnectDelayMs(3, 2, 60, () => 0.5)).toBe(6000);
    // A bound below the first wait is the first wait.
    expect(reconnectDelayMs(4, 30, 10, () => 1)).toBe(30_000);
  });
});

describe('the FIX engine as loaded', () => {
  it('reads a received byte above 0x7F as itself (its repair is installed)', async () => {
    const { fix } = await loadFix();
    const buffer = new fix.ElasticBuffer(4);
    buffer.writeBuffer(Buffer.from([0x41, 0xc9, 0x01]));
    expect(buffer.getString(0, 3)).toBe('A\u00c9\u0001');
    expect(buffer.toString()).toBe('A\u00c9\u0001');
  }, 30_000);

  it("is refused by name when it is not: a copy decoding as Node's 'ascii' loses the high bit", () => {
    class Unrepaired {
      private bytes = Buffer.alloc(0);
      constructor(_size: number) {}
      writeBuffer(b: Buffer): void {
        this.bytes = Buffer.concat([this.bytes, b]);
      }
      getString(start: number, end: number): string {
        return this.bytes.toString('ascii', start, end);
      }
    }
    expect(() => assertBytesKept({ ElasticBuffer: Unrepaired as never })).toThrow(expect.objectContaining({ code: 'dropcopy_fix_unpatched' }));
  });
});
