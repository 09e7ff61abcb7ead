/**
 * How V8 compiles PGlite's WebAssembly in a command that opens the embedded store for a moment.
 *
 * V8 compiles a module's functions quickly first (Liftoff), then recompiles the hot ones with its optimising
 * compiler on background threads, and the process waits for some of that work before PGlite answers: about
 * 0.1 s of a read command's start on two cores, measured by `npm run bench:cli`. The optimised code only pays
 * off after about half a second of SQL work (a 200,000-row aggregate ran 35% slower without it), which a
 * listing or a lookup never does. So a brief command turns the recompilation off before the store is opened;
 * a command whose store work is long (`serve`, a pipeline run) keeps V8's default.
 *
 * The flags are V8's own (`node --v8-options`); Node allows setting them at run time, before the module is
 * compiled. They hold for the rest of the process, so they are set only in a process that runs one command: the
 * CLI's entry points mark theirs (`bin/run.js`, `bin/dev.js`: ONE_COMMAND_PROCESS). A test worker that runs
 * commands in its own process, and goes on to other files, keeps V8's default.
 */
import v8 from 'node:v8';

/** Set to true on `globalThis` by an entry point whose process runs one command and ends. */
export const ONE_COMMAND_PROCESS = Symbol.for('tradeseal.oneCommandProcess');

let applied = false;

/** Idempotent; a no-op after the first call, and outside a one-command process. */
export function compileWasmForABriefRun(): void {
  if (applied || (globalThis as Record<symbol, unknown>)[ONE_COMMAND_PROCESS] !== true) return;
  applied = true;
  v8.setFlagsFromString('--no-wasm-tier-up');
  v8.setFlagsFromString('--no-wasm-dynamic-tiering');
}
