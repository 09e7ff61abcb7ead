/**
 * The server of a document's `<!-- docs-check: serve -->` blocks: `tradeseal serve --port <free>` in the
 * document's workspace, with its environment, ready when `GET /v1/health` answers 200, stopped by SIGTERM to its
 * process group at the document's end (SIGKILL after a grace period), on failure as on success.
 *
 * The documents write the server as `http://localhost:8080`; `toPort` and `fromPort` map that address to the
 * chosen port in commands and back in outputs.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { groupAlive, stopGroup } from './process-group.js';

export const DOCUMENTED_ORIGIN = 'localhost:8080';

export interface DocServer {
  port: number;
  /** The server's own output so far, for a failure's message. */
  log(): string;
  stop(): Promise<void>;
}

/** A port free on 127.0.0.1 at the time of asking. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export function toPort(text: string, port: number): string {
  return text.replace(/\b(localhost|127\.0\.0\.1):8080\b/g, `$1:${port}`);
}

export function fromPort(text: string, port: number): string {
  return text.replace(new RegExp(`\\b(localhost|127\\.0\\.0\\.1):${port}\\b`, 'g'), '$1:8080');
}

async function ready(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/v1/health`, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

export async function startServer(opts: { cwd: string; env: Record<string, string>; deadlineMs: number }): Promise<DocServer> {
  const port = await freePort();
  const child = spawn('tradeseal', ['serve', '--port', String(port)], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let log = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (log += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (log += c));
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  child.once('error', (err) => ((log += `\n${err.message}`), (exited = null)));
  const server: DocServer = { port, log: () => log, stop: () => stopGroup(child.pid, 15_000) };
  const deadline = Date.now() + opts.deadlineMs;
  while (!(await ready(port))) {
    if (exited !== undefined || !groupAlive(child.pid) || Date.now() > deadline) {
      await server.stop();
      const why = exited !== undefined ? `exited (status ${exited})` : `did not answer GET /v1/health within ${Math.round(opts.deadlineMs / 1000)} s`;
      throw new Error(`tradeseal serve --port ${port} ${why}:\n${log.trimEnd()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return server;
}
