/**
 * Loads jspurefix, the FIX engine of the drop-copy session, when a session is configured and not before: the
 * import takes over a second and some 150 MB, which a server without a drop copy (and every command) is spared.
 * `reflect-metadata` must be loaded first: jspurefix's dependency injection (tsyringe) needs it.
 */
import type { IJsFixConfig } from 'jspurefix';

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
    // Not exported from the package's index; the version is pinned (package.json), so the path holds.
    const scope = (await import('jspurefix/dist/runtime/session-scope.js')) as { makeSessionScope: FixRuntime['makeSessionScope'] };
    return { fix, makeSessionScope: scope.makeSessionScope };
  })());
}
