/**
 * Stopping what the documented-output checker started: each child runs in its own process group (spawned
 * `detached`), so a signal to the group reaches the shell, the CLI and anything they started.
 */

/** Signals the process group led by `pid`; a group already gone is not an error. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: every process of the group has exited.
  }
}

/** True while any process of the group led by `pid` is alive. */
export function groupAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Sends SIGTERM to the group and waits for it to be gone, up to `graceMs`; then SIGKILL. Resolves once no
 * process of the group is left.
 */
export async function stopGroup(pid: number | undefined, graceMs: number): Promise<void> {
  if (!groupAlive(pid)) return;
  killGroup(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  killGroup(pid, 'SIGKILL');
  const killDeadline = Date.now() + 5_000;
  while (groupAlive(pid) && Date.now() < killDeadline) await new Promise((r) => setTimeout(r, 50));
}
