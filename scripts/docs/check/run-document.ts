/**
 * Runs one document's `console` blocks in order in one workspace, as one reader would in one terminal:
 * exported variables carry from command to command, a `serve` block starts the server that stays up for the
 * rest of the document, and the server is stopped at the end whatever happened.
 *
 * What a command printed is recorded as the document shows it: the server's port written back as
 * `localhost:8080`, the workspace's working directory (its store is `$PWD/.tradeseal`) as `$PWD`.
 */
import type { ParsedDocument } from './parse.js';
import { fromPort, startServer, toPort, type DocServer } from './serve.js';
import { runCommand } from './shell.js';
import type { Toolbox, Workspace } from './workspace.js';

export interface CommandRun {
  /** The command as documented (its index in the document's commands, in order). */
  line: number;
  command: string;
  /** The output as the document should show it (port and paths written as documented), lines. */
  actual: string[];
  exitCode: number | null;
  /** Set when the command could not be run to its end: a deadline, a server that did not start. */
  error: string | null;
}

export interface RunOptions {
  commandDeadlineMs: number;
  serverDeadlineMs: number;
}

function asDocumented(output: string, ws: Workspace, server: DocServer | null): string[] {
  let text = output.split(ws.cwd).join('$PWD');
  if (server) text = fromPort(text, server.port);
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export interface DocumentRun {
  runs: CommandRun[];
  /** The environment the last command left (exported variables included): where a continuing document starts. */
  env: Record<string, string>;
}

export async function runDocument(doc: ParsedDocument, ws: Workspace, box: Toolbox, opts: RunOptions): Promise<DocumentRun> {
  const runs: CommandRun[] = [];
  let state: Record<string, string> = { ...ws.env };
  let server: DocServer | null = null;
  try {
    for (const block of doc.blocks) {
      if (block.serve && !server) {
        try {
          server = await startServer({ cwd: ws.cwd, env: state, deadlineMs: opts.serverDeadlineMs });
        } catch (err) {
          for (const c of block.commands) runs.push({ line: c.line, command: c.text, actual: [], exitCode: null, error: `not run: ${(err as Error).message}` });
          // Every later command needs the server too.
          for (const later of doc.blocks.slice(doc.blocks.indexOf(block) + 1)) {
            for (const c of later.commands) runs.push({ line: c.line, command: c.text, actual: [], exitCode: null, error: 'not run: the server did not start' });
          }
          return { runs, env: state };
        }
      }
      for (const c of block.commands) {
        const text = server ? toPort(c.text, server.port) : c.text;
        const r = await runCommand(text, { cwd: ws.cwd, env: { ...state, ...block.env }, deadlineMs: opts.commandDeadlineMs, scratch: box.root });
        const next = { ...state };
        for (const [k, v] of Object.entries(r.exported)) {
          // A block's own environment does not carry to the next block, unless the command changed it.
          if (k in block.env && v === block.env[k]) continue;
          if (v === null) delete next[k];
          else next[k] = v;
        }
        state = next;
        runs.push({
          line: c.line,
          command: c.text,
          actual: asDocumented(r.output, ws, server),
          exitCode: r.exitCode,
          error: r.timedOut ? `did not finish within ${Math.round(opts.commandDeadlineMs / 1000)} s (killed)` : null,
        });
      }
    }
  } finally {
    await server?.stop();
  }
  return { runs, env: state };
}
