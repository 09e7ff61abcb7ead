/**
 * Loads jspurefix, the FIX engine of the drop-copy session, when a session is configured and not before: the
 * import takes over a second and some 150 MB, which a server without a drop copy (and every command) is spared.
 * `reflect-metadata` must be loaded first: jspurefix's dependency injection (tsyringe) needs it.
 *
 * jspurefix 5.11.4 read every byte above 0x7F with its high bit cleared (patches/jspurefix+5.11.4.patch repairs
 * it at install, through patch-package). A session on an unrepaired copy would take altered values for received
 * ones, so loading checks the repair is there and refuses (`dropcopy_fix_unpatched`) when it is not.
 *
 * One function is imported by its path, not from the package: `makeSessionScope`
 * (`jspurefix/dist/runtime/session-scope.js`), a connection's own copy of the session's configuration. Its
 * index (5.11.4, the newest release; no `exports` map) does not export it: the public way to a scope is the
 * session launcher, whose initiator and acceptor own the socket, and the drop copy owns its socket (its own
 * listener, the Logon gate, one session at a time: docs/engine.md, "The FIX engine, and what is changed in it").
 * Copying the function from public parts would let an upgrade change it unseen; the path instead fails the
 * drop-copy tests if an upgrade moves it. The version is pinned exactly (package.json).
 */
import type { IJsFixConfig } from 'jspurefix';
import { TradesealError } from '../../core/errors.js';

export type Jspurefix = typeof import('jspurefix');

export interface FixRuntime {
  fix: Jspurefix;
  /** A per-connection copy of a session's configuration: its own parse and transmit buffers. */
  makeSessionScope: (config: IJsFixConfig) => IJsFixConfig;
}

let loading: Promise<FixRuntime> | undefined;

export function loadFix(): Promise<FixRuntime> {
  return (loading ??= (async () => {
    await import('reflect-metadata');
    const fix = await import('jspurefix');
    assertBytesKept(fix);
    // Not exported from the package's index (see above).
    const scope = (await import('jspurefix/dist/runtime/session-scope.js')) as { makeSessionScope: FixRuntime['makeSessionScope'] };
    return { fix, makeSessionScope: scope.makeSessionScope };
  })());
}

/** Throws unless jspurefix reads a received byte above 0x7F as itself (the repair of its decoding is installed). */
export function assertBytesKept(fix: Pick<Jspurefix, 'ElasticBuffer'>): void {
  const buffer = new fix.ElasticBuffer(4);
  buffer.writeBuffer(Buffer.from([0x41, 0xc9]));
  const read = buffer.getString(0, 2);
  if (read !== 'A\u00c9') {
    throw new TradesealError(
      'dropcopy_fix_unpatched',
      `jspurefix reads the byte 0xC9 as ${JSON.stringify(read.slice(1))}: its repair (patches/jspurefix+5.11.4.patch) is not installed`,
      {
        hint: 'run `npx patch-package` in the installation (npm install runs it as postinstall)',
      },
    );
  }
}
