/**
 * Reads what wrk and the IRL Engine's script (bench/irl/authorize.lua) print: wrk's own summary on stdout
 * (`N requests in Ts`, `Non-2xx or 3xx responses`, `Socket errors`, `Requests/sec`), the script's `done()`
 * block (its latency percentiles, in ms), and the script's stderr, one `[WARN] HTTP <status>: <body>` line per
 * answer that was neither 200 nor 201. Pure: text in, figures out (bench/irl-wrk.ts runs wrk).
 */

export interface WrkFigures {
  /** wrk's `Requests/sec` (every answer, whatever its status). */
  rps: number | null;
  /** Answers received (wrk's `N requests in …`). */
  requests: number;
  durationS: number | null;
  /** wrk's `Non-2xx or 3xx responses` (0 when it printed none). */
  non2xx: number;
  /** connect + read + write + timeout of wrk's `Socket errors` line (0 when it printed none). */
  socketErrors: number;
  /** The script's percentiles, ms. */
  p50: number | null;
  p95: number | null;
  p99: number | null;
  p999: number | null;
}

const num = (text: string, re: RegExp): number | null => {
  const m = re.exec(text);
  return m ? Number(m[1]) : null;
};

/** wrk's duration text (`30.10s`, `1.00m`, `850.00ms`) in seconds. */
function seconds(value: string, unit: string): number {
  const n = Number(value);
  if (unit === 'ms') return n / 1000;
  if (unit === 'm') return n * 60;
  if (unit === 'h') return n * 3600;
  return n;
}

export function parseWrk(stdout: string): WrkFigures {
  const total = /(\d+) requests in ([\d.]+)(ms|s|m|h),/.exec(stdout);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  return {
    // wrk's own line (`Requests/sec:   1234.56`), not the script's (`Requests/sec : …`), which says the same.
    rps: num(stdout, /^Requests\/sec:\s+([\d.]+)/m),
    requests: total ? Number(total[1]) : 0,
    durationS: total ? seconds(total[2] as string, total[3] as string) : null,
    non2xx: num(stdout, /Non-2xx or 3xx responses: (\d+)/) ?? 0,
    socketErrors: socket ? socket.slice(1, 5).reduce((s, v) => s + Number(v), 0) : 0,
    p50: num(stdout, /^p50 latency\s*:\s*([\d.]+) ms/m),
    p95: num(stdout, /^p95 latency\s*:\s*([\d.]+) ms/m),
    p99: num(stdout, /^p99 latency\s*:\s*([\d.]+) ms/m),
    p999: num(stdout, /^p99\.9 latency\s*:\s*([\d.]+) ms/m),
  };
}

export interface WarningTally {
  /** Answers by HTTP status, from the script's `[WARN] HTTP <status>: <body>` lines. */
  byStatus: Record<string, number>;
  /** The first bodies of each status (at most `keep`), to show what was refused. */
  samples: Record<string, string[]>;
}

export function tallyWarnings(stderr: string, keep = 3): WarningTally {
  const byStatus: Record<string, number> = {};
  const samples: Record<string, string[]> = {};
  for (const line of stderr.split('\n')) {
    const m = /^\[WARN\] HTTP (\d{3}): (.*)$/.exec(line);
    if (!m) continue;
    const status = m[1] as string;
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    const list = (samples[status] ??= []);
    if (list.length < keep) list.push(m[2] as string);
  }
  return { byStatus, samples };
}
