/**
 * Vitest global setup of the main project: builds the QuickFIX/C++ exchange peer the FIX drop-copy tests run
 * against (test/helpers/quickfix/build.ts: once per source, cached) and hands its path to the workers
 * (`inject(QUICKFIX_PEER_KEY)`). A failed build (QuickFIX not installable here) is handed over as its
 * message: the drop-copy tests then fail with it, and the other tests run as usual.
 */
import type { TestProject } from 'vitest/node';
import { buildExchangePeer } from '../helpers/quickfix/build.js';

export const QUICKFIX_PEER_KEY = 'tradesealQuickfixPeer';

export type QuickfixPeerBuild = { binary: string; error?: undefined } | { binary?: undefined; error: string };

declare module 'vitest' {
  export interface ProvidedContext {
    [QUICKFIX_PEER_KEY]: QuickfixPeerBuild;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const started = performance.now();
  try {
    const binary = await buildExchangePeer();
    project.provide(QUICKFIX_PEER_KEY, { binary });
    console.log(`[tradeseal tests] QuickFIX exchange peer ready in ${((performance.now() - started) / 1000).toFixed(1)} s: ${binary}`);
  } catch (error) {
    project.provide(QUICKFIX_PEER_KEY, { error: (error as Error).message });
    console.log(`[tradeseal tests] QuickFIX exchange peer unavailable; the FIX drop-copy tests will fail: ${(error as Error).message}`);
  }
}
