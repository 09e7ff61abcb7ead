/**
 * CPU time from /proc (Linux), to tell where a run's CPU went on a small machine: the engine server, the
 * PostgreSQL server's processes, the load generator, and the machine as a whole.
 *
 * A process tree's time is its root's user+system time, plus the time of its children it has reaped
 * (cutime+cstime: a PostgreSQL backend that exited between two snapshots is not lost), plus the live
 * descendants' own time. Where /proc is missing, the snapshots are null and the report says so.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

interface Stat {
  pid: number;
  ppid: number;
  /** utime + stime, ticks. */
  own: number;
  /** cutime + cstime, ticks. */
  reaped: number;
}

function readStat(pid: number | 'self'): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const n = (i: number): number => Number(fields[i]);
    return { pid: Number(text.slice(0, text.indexOf(' '))), ppid: n(1), own: n(11) + n(12), reaped: n(13) + n(14) };
  } catch {
    return null;
  }
}

/** CPU seconds used so far by `root` and its descendants, or null when unreadable. */
export function treeCpuSeconds(root: number): number | null {
  const rootStat = readStat(root);
  if (!rootStat) return null;
  const byParent = new Map<number, Stat[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = readStat(Number(entry));
    if (!s) continue;
    const list = byParent.get(s.ppid);
    if (list) list.push(s);
    else byParent.set(s.ppid, [s]);
  }
  let ticks = rootStat.own + rootStat.reaped;
  const stack = [...(byParent.get(root) ?? [])];
  while (stack.length > 0) {
    const s = stack.pop() as Stat;
    ticks += s.own;
    stack.push(...(byParent.get(s.pid) ?? []));
  }
  return ticks / clockTicks();
}

/** Busy and total CPU seconds of the whole machine (all cores), or null when unreadable. */
export function machineCpuSeconds(): { busy: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already inside user).
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = v;
    const busy = user + nice + system + irq + softirq + steal;
    return { busy: busy / clockTicks(), total: (busy + idle + iowait) / clockTicks() };
  } catch {
    return null;
  }
}

/** CPU seconds of this process's children that have exited and been reaped (a load generator run to its end). */
export function reapedChildrenCpuSeconds(): number | null {
  const self = readStat('self');
  return self === null ? null : self.reaped / clockTicks();
}

function selfCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

export interface CpuSnapshot {
  server: number | null;
  postgres: number | null;
  loadgen: number | null;
  machine: { busy: number; total: number } | null;
}

export function cpuSnapshot(serverPid: number, postmasterPid: number | null): CpuSnapshot {
  return {
    server: treeCpuSeconds(serverPid),
    postgres: postmasterPid === null ? null : treeCpuSeconds(postmasterPid),
    // This process alone: the engine server is its child, and is counted above.
    loadgen: selfCpuSeconds(),
    machine: machineCpuSeconds(),
  };
}

export interface CpuUse {
  /** CPU ms per 2xx request, by process group. */
  serverMsPerReq: number | null;
  postgresMsPerReq: number | null;
  loadgenMsPerReq: number | null;
  /** The rest of the machine (other processes, kernel work not charged to these), ms per request. */
  otherMsPerReq: number | null;
  /** Busy share of all cores during the run, 0-1. */
  machineBusy: number | null;
  /** Share of all cores used by everything else (other processes on the machine): high means contaminated figures. */
  othersBusy: number | null;
}

export function cpuUse(before: CpuSnapshot, after: CpuSnapshot, requests: number): CpuUse {
  const per = (a: number | null, b: number | null): number | null => (a === null || b === null || requests === 0 ? null : ((b - a) * 1000) / requests);
  const server = per(before.server, after.server);
  const postgres = per(before.postgres, after.postgres);
  const loadgen = per(before.loadgen, after.loadgen);
  let other: number | null = null;
  let busy: number | null = null;
  let others: number | null = null;
  if (before.machine && after.machine) {
    const total = after.machine.total - before.machine.total;
    const used = after.machine.busy - before.machine.busy;
    busy = total > 0 ? used / total : null;
    const machinePerReq = requests > 0 ? (used * 1000) / requests : null;
    if (machinePerReq !== null && server !== null && loadgen !== null) {
      other = Math.max(0, machinePerReq - server - loadgen - (postgres ?? 0));
      others = total > 0 ? (other * requests) / 1000 / total : null;
    }
  }
  return { serverMsPerReq: server, postgresMsPerReq: postgres, loadgenMsPerReq: loadgen, otherMsPerReq: other, machineBusy: busy, othersBusy: others };
}
