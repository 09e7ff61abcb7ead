/**
 * A summary of a V8 CPU profile (`.cpuprofile`, as the inspector's Profiler.stop returns it): self time by
 * area (a package, a source file of ours, a Node internal module, the garbage collector) and by function,
 * as shares of the time the thread was not idle.
 */

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileLine {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  /** Wall time covered, ms. */
  wallMs: number;
  /** Time the thread was not idle, ms. */
  busyMs: number;
  /** Every area, most time first. */
  areas: ProfileLine[];
  /** The `top` functions, most time first. */
  functions: ProfileLine[];
}

const SPECIAL = new Set(['(garbage collector)', '(program)', '(idle)', '(root)']);

/** A file of the compiled build (dist/…/x.js) by the name of its source (…/x.ts). */
const sourceName = (file: string): string => file.replace(/\.js$/, '.ts');

function area(url: string, functionName: string): string {
  if (SPECIAL.has(functionName)) return functionName;
  if (url === '') return `(native) ${functionName}`;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? url);
  }
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const src = url.search(/\/(src|bench)\//);
  if (src >= 0) return sourceName(url.slice(src + 1));
  return url;
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) return url.slice(nm + '/node_modules/'.length);
  const src = url.search(/\/(src|bench)\//);
  return src >= 0 ? sourceName(url.slice(src + 1)) : url;
}

export function summarizeProfile(profile: CpuProfile, top = 15): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // timeDeltas[i] is the time before sample i; the time after sample i (until the next) is charged to it.
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i] as number;
    const dt = (deltas[i + 1] ?? 0) / 1000;
    self.set(id, (self.get(id) ?? 0) + dt);
  }
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let idle = 0;
  let total = 0;
  for (const [id, ms] of self) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    total += ms;
    if (functionName === '(idle)') {
      idle += ms;
      continue;
    }
    const a = area(url, functionName);
    areas.set(a, (areas.get(a) ?? 0) + ms);
    const f = SPECIAL.has(functionName) ? functionName : `${functionName || '(anonymous)'} ${url ? `${shortUrl(url)}:${lineNumber + 1}` : '(native)'}`;
    functions.set(f, (functions.get(f) ?? 0) + ms);
  }
  const busy = total - idle;
  const lines = (m: Map<string, number>, limit: number): ProfileLine[] =>
    [...m.entries()]
      .sort((x, y) => y[1] - x[1])
      .slice(0, limit)
      .map(([name, ms]) => ({ name, ms, share: busy > 0 ? ms / busy : 0 }));
  return { wallMs: (profile.endTime - profile.startTime) / 1000, busyMs: busy, areas: lines(areas, Infinity), functions: lines(functions, top) };
}
