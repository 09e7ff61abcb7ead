/** Drives the terminal view (src/cli/attention/app.tsx) with ink-testing-library, as a terminal would. */
import { render } from 'ink-testing-library';
import { AttentionApp } from '../../src/cli/attention/app.js';
import type { AttentionSource } from '../../src/cli/attention/source.js';

export const settle = (ms = 150): Promise<void> => new Promise((r) => setTimeout(r, ms));
export const KEY = { right: '\u001b[C', left: '\u001b[D', down: '\u001b[B', up: '\u001b[A', enter: '\r', escape: '\u001b' };

/** Polls the frame until `ok` holds (the view renders asynchronously, after its reads). */
export async function frameWhen(frame: () => string, ok: (f: string) => boolean, ms = 10_000): Promise<string> {
  const end = Date.now() + ms;
  while (!ok(frame()) && Date.now() < end) await settle(20);
  return frame();
}

/**
 * Idle: no read in flight, and the frame unchanged for 100 ms. Not one poll: a key that changes the page first
 * draws the new page's label and only then starts its read (an effect), and on a loaded machine that gap can
 * outlast a poll, showing the old rows under the new label without `loading…`.
 */
export async function idle(frame: () => string): Promise<string> {
  let last = '';
  let since = Date.now();
  await frameWhen(frame, (f) => {
    if (f !== last || f.includes('loading…')) {
      last = f;
      since = Date.now();
      return false;
    }
    return Date.now() - since >= 100;
  });
  return frame();
}

/** The view on `source`, 80 columns wide, after its first page has loaded; it refreshes by itself every `refreshMs`. */
export async function openView(source: AttentionSource, height = 24, refreshMs = 60_000) {
  const view = render(<AttentionApp source={source} width={80} height={height} refreshMs={refreshMs} />);
  const frame = (): string => view.lastFrame() ?? '';
  await frameWhen(frame, (f) => f.includes('refreshed'));
  await idle(frame);
  /**
   * Each key (or typed text) written on its own, as a terminal sends them, each after the view has drawn what
   * the one before did; then the frame once every read it started has ended.
   */
  const press = async (...keys: string[]): Promise<string> => {
    for (const k of keys) {
      const before = frame();
      view.stdin.write(k);
      // Every key pressed here changes the frame (a tab, a page's `loading…`, a character of the filter);
      // a loaded machine may take seconds to draw it, and reading the frame before would read the old one
      // (`tap` is for keys that may not change it).
      await frameWhen(frame, (f) => f !== before);
    }
    return idle(frame);
  };
  /** Keys that may leave the frame as it is (scrolling past the end): each written once the view is idle. */
  const tap = async (...keys: string[]): Promise<string> => {
    for (const k of keys) {
      view.stdin.write(k);
      await idle(frame);
    }
    return frame();
  };
  return { view, press, tap, frame };
}
