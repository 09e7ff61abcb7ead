/**
 * A floor measured twice, before and after the routes measured against it, taken as one: the mean of the two
 * runs' req/s, latency percentiles, CPU per request and main-thread busy share. This machine's speed drifts
 * within a scenario (the floors move 10–30 % between runs); a floor measured once, half a minute before the
 * route it is compared with, turns that drift into the ratio. The mean of a run before and a run after cancels
 * a steady drift and halves the weight of a passing one; it favours neither side, and both runs are reported.
 */
import type { Latency, LoadResult } from './load.js';
import type { CpuUse } from './proc.js';

/** What bracketing needs of a measured run (bench/engine.ts `Measured`). */
export interface MeasuredRun {
  route: string;
  result: LoadResult;
  handled: number;
  cpu: CpuUse;
  loopBusy: number | null;
  note: string | null;
}

const mean = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : (a + b) / 2);

export function bracketed<M extends MeasuredRun>(before: M, after: M): M {
  const a = before.result;
  const b = after.result;
  const statusCounts: Record<string, number> = { ...a.statusCounts };
  for (const [status, n] of Object.entries(b.statusCounts)) statusCounts[status] = (statusCounts[status] ?? 0) + n;
  const latency = Object.fromEntries(Object.keys(a.latency).map((k) => [k, ((a.latency[k as keyof Latency] + b.latency[k as keyof Latency]) / 2)])) as unknown as Latency;
  const cpu = Object.fromEntries(Object.keys(before.cpu).map((k) => [k, mean(before.cpu[k as keyof CpuUse], after.cpu[k as keyof CpuUse])])) as unknown as CpuUse;
  const notes = [before.note, after.note].filter((n): n is string => n !== null);
  return {
    ...before,
    result: {
      ...a, seconds: a.seconds + b.seconds, responses: a.responses + b.responses, ok: a.ok + b.ok, non2xx: a.non2xx + b.non2xx,
      socketErrors: a.socketErrors + b.socketErrors, statusCounts, errorSamples: [...a.errorSamples, ...b.errorSamples].slice(0, 5), rps: (a.rps + b.rps) / 2, latency,
    },
    handled: before.handled + after.handled, cpu, loopBusy: mean(before.loopBusy, after.loopBusy), note: notes.length > 0 ? notes.join('; ') : null,
  };
}
