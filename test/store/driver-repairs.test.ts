/**
 * The store driver runs only with its repairs (patches/postgres+3.4.9.patch, src/store/driver-repairs.ts): the
 * driver this process loads carries them in every repaired file, and a copy of it without them, whole or in part,
 * is refused with `store_driver_unrepaired` naming each file that lacks them and how to repair the installation.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TradesealError } from '../../src/core/errors.js';
import { assertDriverRepaired, DRIVER_REPAIR_MARK, driverDirectory, REPAIRED_FILES, unrepairedFiles } from '../../src/store/driver-repairs.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tradeseal-driver-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the installed driver's repaired files, with the mark taken off `strip`. */
function copyWithout(strip: string[]): string {
  const dir = mkdtempSync(path.join(scratch, 'copy-'));
  for (const file of REPAIRED_FILES) {
    cpSync(path.join(driverDirectory(), file), path.join(dir, file));
    if (strip.includes(file)) writeFileSync(path.join(dir, file), readFileSync(path.join(dir, file), 'utf8').replace(`${DRIVER_REPAIR_MARK}\n`, ''));
  }
  return dir;
}

describe("the store driver's repairs", () => {
  it('are in every repaired file of the driver this process loads', () => {
    expect(unrepairedFiles(driverDirectory())).toEqual([]);
    expect(() => assertDriverRepaired()).not.toThrow();
    // The ES module build is the one `import 'postgres'` loads: its repaired code is there, not only the mark.
    expect(readFileSync(path.join(driverDirectory(), 'src/connection.js'), 'utf8')).toContain('typeLookup');
  });

  it('missing from a copy, whole or in one file, refuse it with store_driver_unrepaired naming the files', () => {
    const none = copyWithout([...REPAIRED_FILES]);
    expect(unrepairedFiles(none)).toEqual(REPAIRED_FILES);
    const one = copyWithout(['src/queue.js']);
    let error: unknown;
    try {
      assertDriverRepaired(one);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TradesealError);
    expect(error).toMatchObject({ code: 'store_driver_unrepaired', hint: expect.stringContaining('npx patch-package') });
    expect((error as Error).message).toContain('src/queue.js lacks them');
    expect(unrepairedFiles(path.join(scratch, 'no-driver-here'))).toEqual(REPAIRED_FILES);
  });
});
