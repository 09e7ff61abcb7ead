/**
 * What the command's standard output is, read once: its width (`COLUMNS` when set to a whole number, as
 * `ls` and POSIX utilities read it, so a pipe can ask for a width too; else a terminal's columns; null for a
 * pipe or a file, whose lines are never cut), and whether colour may be written (a terminal, `NO_COLOR` unset or empty,
 * `TERM` not `dumb`; `FORCE_COLOR` set to anything but 0 forces it, as https://no-color.org and
 * https://force-color.org describe).
 */
export interface Terminal {
  /** Columns of the terminal; null when the output is not one. */
  width: number | null;
  color: boolean;
}

/** `COLUMNS` as a width (at least 20), or null when unset or not a whole number. */
function columnsOf(env: NodeJS.ProcessEnv): number | null {
  const columns = env.COLUMNS;
  return columns !== undefined && /^\d+$/.test(columns.trim()) && Number(columns) > 0 ? Math.max(20, Number(columns)) : null;
}

export function terminalOf(stream: { isTTY?: boolean; columns?: number } = process.stdout, env: NodeJS.ProcessEnv = process.env): Terminal {
  const tty = stream.isTTY === true;
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0';
  const refused = (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || env.TERM === 'dumb';
  return {
    width: columnsOf(env) ?? (tty ? Math.max(20, stream.columns ?? 80) : null),
    color: forced || (tty && !refused),
  };
}

/**
 * Whether a full-screen view can run: standard input and output are both a terminal, and the environment is
 * not a CI job. ink, which draws the view, reads `CI` and `CONTINUOUS_INTEGRATION` (set to anything but `0` or
 * `false`) once when it loads and then draws no frame until the view exits, so there a command prints its
 * plain listing instead of a view nobody could see.
 */
export function fullScreenPossible(
  stdin: { isTTY?: boolean } = process.stdin,
  stdout: { isTTY?: boolean } = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const set = (name: string): boolean => env[name] !== undefined && env[name] !== '0' && env[name] !== 'false';
  return stdin.isTTY === true && stdout.isTTY === true && !set('CI') && !set('CONTINUOUS_INTEGRATION');
}
