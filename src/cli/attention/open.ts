/**
 * Opens the compliance officers' full-screen view (./app.tsx, drawn by ink) on a source of traces and waits
 * until it is closed. Its own module because it loads ink and React: the commands that open the view
 * (`engine orphans`, `demo`) import it inside `run()`, when the view is about to open, so that the CLI's start
 * does not pay for them.
 */
import { render } from 'ink';
import { createElement } from 'react';
import { AttentionApp } from './app.js';
import type { AttentionSource } from './source.js';

/** Draws the view on the whole terminal and resolves when the user quits it. */
export async function openAttentionView(source: AttentionSource): Promise<void> {
  await render(createElement(AttentionApp, { source, width: process.stdout.columns ?? 80, height: process.stdout.rows ?? 24 })).waitUntilExit();
}
