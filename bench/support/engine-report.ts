/**
 * The engine benchmark's report (bench/engine.ts): the summary against the targets, each scenario's table, the
 * scale and comparison runs, where the CPU and the SQL went, the profiles, and the same in JSON.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { BenchDatabase } from './pg.js';
import { COMPARE_KEYS, settingsText } from './compare.js';
import {
  FLOOR_NAME,
  label,
  TARGET_AUTHORIZE_RELATIVE,
  TARGET_BIND_RELATIVE,
  TARGET_P99_RATIO,
  TARGET_RSS_MB,
  TARGET_SCALE_PCT,
  TARGET_SERVICE_P99_MS,
  VERIFY_FLOOR_NAME,
  type ComparisonResult,
  type Measured,
  type Profiled,
  type Runs,
  type ScaleResult,
  type ScenarioResult,
} from './engine-results.js';

/** A figure to `digits` places, `-` when unknown. */
export const fmt = (n: number | null | undefined, digits = 1): string => (n === null || n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits));

/** Rows as aligned columns (the first left-aligned, the others right-aligned), a rule under the header. */
function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  const line = (r: string[]): string => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join('  ');
  return [line(rows[0] as string[]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** An installed package's version, `?` when it cannot be read. */
function versionOf(pkg: string): string {
  try {
    const require = createRequire(import.meta.url);
    return (require(`${pkg}/package.json`) as { version: string }).version;
  } catch {
    return '?';
  }
}

interface Target {
  route: string;
  /** The route whose req/s the target is relative to, and the least ratio. */
  against: string;
  min: number;
  relative: number;
  throughputMet: boolean;
  p99: number;
  p99Ratio: number;
  p99Met: boolean;
}

/** Authorize against floor-verify, bind against the 1-INSERT floor; both p99s against the 1-INSERT floor's. */
function targetsOf(r: ScenarioResult): Target[] {
  const floor = r.floor.result;
  return (
    [
      [r.authorize, r.verifyFloor, TARGET_AUTHORIZE_RELATIVE],
      [r.bind, r.floor, TARGET_BIND_RELATIVE],
    ] as const
  ).map(([m, against, min]) => {
    const relative = m.result.rps / against.result.rps;
    const p99Ratio = m.result.latency.p99 / floor.latency.p99;
    return {
      route: m.route,
      against: against.route,
      min,
      relative,
      throughputMet: relative >= min,
      p99: m.result.latency.p99,
      p99Ratio,
      p99Met: p99Ratio < TARGET_P99_RATIO,
    };
  });
}

/** Per-round ratios as printed: each to two places, with their range. */
const ratios = (values: readonly number[]): string =>
  `${values.map((v) => fmt(v, 2)).join(', ')}${values.length > 1 ? ` (range ${fmt(Math.min(...values), 2)}–${fmt(Math.max(...values), 2)})` : ''}`;

/** Where each route's time went: CPU per request by process group, the machine's and the main thread's busy shares, SQL. */
function cpuTable(all: readonly Measured[]): string[] {
  const out: string[] = [];
  out.push('where the time goes (CPU ms per 2xx request; machine busy = share of all cores in use during the run)');
  out.push(
    table([
      ['route', 'server', 'postgres', 'loadgen', 'other', 'total', 'busy', 'loop', 'others', 'SQL/req', 'SQL exec ms/req'],
      ...all.map((m) => {
        const c = m.cpu;
        const total = [c.serverMsPerReq, c.postgresMsPerReq, c.loadgenMsPerReq, c.otherMsPerReq].reduce<number | null>(
          (s, v) => (s === null || v === null ? s : s + v),
          0,
        );
        return [
          m.route,
          fmt(c.serverMsPerReq, 3),
          fmt(c.postgresMsPerReq, 3),
          fmt(c.loadgenMsPerReq, 3),
          fmt(c.otherMsPerReq, 3),
          fmt(total, 3),
          c.machineBusy === null ? '-' : `${fmt(c.machineBusy * 100, 0)}%`,
          m.loopBusy === null ? '-' : `${fmt(m.loopBusy * 100, 0)}%`,
          c.othersBusy === null ? '-' : `${fmt(c.othersBusy * 100, 0)}%`,
          fmt(m.statements?.perRequest, 2),
          fmt(m.statements?.execMsPerRequest, 3),
        ];
      }),
    ]),
  );
  return out;
}

function scenarioReport(r: ScenarioResult, db: BenchDatabase, detail: boolean): string[] {
  const floorRps = r.floor.result.rps;
  const all = [r.noop, r.floor, r.roundTrips, r.verifyFloor, r.authorize, r.bind].filter((m): m is Measured => m !== null);
  const relative = (m: Measured): number => m.result.rps / floorRps;
  const errors = (m: Measured): number => m.result.non2xx + m.result.socketErrors;
  const out: string[] = [];
  out.push('');
  out.push(
    `== ${label(r.scenario)} (pool ${r.scenario.pool}; ${Object.entries(r.settings)
      .filter(([k]) => ['fsync', 'synchronous_commit', 'full_page_writes'].includes(k))
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')})`,
  );
  out.push(
    table([
      ['route', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs floor'],
      ...all.map((m) => [
        m.route,
        fmt(m.result.rps, 0),
        fmt(m.result.latency.p50, 2),
        fmt(m.result.latency.p99, 2),
        String(errors(m)),
        `${fmt(relative(m), 2)}x`,
      ]),
    ]),
  );
  for (const m of all) if (m.note) out.push(`note: ${m.route}: ${m.note}`);
  out.push(
    `measured in ${r.floor.sliceRps.length} rounds taken in turns, each route's figure the pool of its slices; per round, authorize ÷ floor-verify ${ratios(r.roundRatios.authorize)},`,
  );
  out.push(`  bind ÷ floor ${ratios(r.roundRatios.bind)}`);
  out.push(
    `server RSS, peak per worker${r.peakOwn ? ' during this scenario' : ' since it started'}: ${r.rssPeakMb.map((v) => `${fmt(v, 0)} MB`).join(', ')} (target < ${TARGET_RSS_MB} MB)`,
  );
  out.push('');
  out.push(...cpuTable(all));
  const contaminated = all.filter((m) => (m.cpu.othersBusy ?? 0) > 0.1);
  if (contaminated.length > 0) {
    out.push(`  WARNING: other processes used more than 10% of the machine during ${contaminated.map((m) => m.route).join(', ')}:`);
    out.push('  those figures are low and noisy; run again on a quiet machine. The per-request CPU columns are the steadier guide.');
  }
  if (detail) {
    out.push("  server = the engine server's processes; postgres = the cluster's processes; loadgen = this process (autocannon, request");
    out.push("  building, heartbeat signing); other = the rest of the machine's busy time per request; others = its share of all cores;");
    out.push("  loop = the share of the run the server's main thread was busy (event-loop utilisation; the mean of the workers'):");
    out.push('  near 100% the main thread, not the machine, is what limits the route.');
    out.push('  SQL/req: statements per request as pg_stat_statements counts them (each a round trip; it misses the COMMIT');
    out.push('  of a transaction that postgres.js sends through the extended protocol: authorize and bind use no explicit transaction).');
    if (!db.statements) out.push('  (pg_stat_statements is not loaded on this server: no SQL figures)');
    for (const m of [r.authorize, r.bind]) {
      if (!m.statements) continue;
      out.push('');
      out.push(`statements of ${m.route} (pg_stat_statements, per 2xx request):`);
      out.push(
        table([
          ['per req', 'mean ms', 'statement'],
          ...m.statements.top.map((st) => [fmt(st.perRequest, 2), fmt(st.meanMs, 3), st.query.length > 110 ? `${st.query.slice(0, 110)}…` : st.query]),
        ]),
      );
    }
  }
  return out;
}

function routeJson(m: Measured, floorRps: number | null): Record<string, unknown> {
  return {
    route: m.route,
    rps: m.result.rps,
    latency_ms: m.result.latency,
    responses: m.result.responses,
    ok: m.result.ok,
    server_2xx: m.handled,
    errors: m.result.non2xx + m.result.socketErrors,
    status_counts: m.result.statusCounts,
    seconds: m.result.seconds,
    ...(floorRps === null ? {} : { relative_to_floor: m.result.rps / floorRps }),
    slice_rps: m.sliceRps,
    cpu_ms_per_request: m.cpu,
    main_thread_busy: m.loopBusy,
    statements: m.statements,
    note: m.note,
  };
}

function scenarioJson(r: ScenarioResult): Record<string, unknown> {
  const floorRps = r.floor.result.rps;
  return {
    mode: r.scenario.mode,
    durable: r.scenario.mode === 'durable',
    workers: r.scenario.workers,
    connections: r.scenario.connections,
    pool: r.scenario.pool,
    history_traces: 0,
    settings: r.settings,
    floor_route: r.floor.route,
    routes: [r.noop, r.floor, r.roundTrips, r.verifyFloor, r.authorize, r.bind].filter((m): m is Measured => m !== null).map((m) => routeJson(m, floorRps)),
    targets: targetsOf(r).map((t) => ({
      route: t.route,
      against: t.against,
      relative: t.relative,
      min_relative: t.min,
      throughput: t.throughputMet ? 'MET' : 'NOT MET',
      p99_ms: t.p99,
      p99_relative_to_floor: t.p99Ratio,
      max_p99_relative: TARGET_P99_RATIO,
      p99: t.p99Met ? 'MET' : 'NOT MET',
    })),
    rss_peak_mb_per_worker: r.rssPeakMb,
    max_rss_mb: TARGET_RSS_MB,
    rounds: r.floor.sliceRps.length,
    round_ratios: {
      [r.authorize.route]: { against: r.verifyFloor.route, ratios: r.roundRatios.authorize },
      [r.bind.route]: { against: r.floor.route, ratios: r.roundRatios.bind },
    },
  };
}

/** The scale run's change of each route's req/s with the history stored, percent. */
const scaleChanges = (s: ScaleResult): Array<{ route: string; stored: Measured; empty: Measured; pct: number; rounds: number[]; met: boolean }> =>
  (['authorize', 'bind'] as const).map((k) => {
    const pct = (s.stored[k].result.rps / s.empty[k].result.rps - 1) * 100;
    return {
      route: s.stored[k].route,
      stored: s.stored[k],
      empty: s.empty[k],
      pct,
      rounds: s.roundRatios[k].map((x) => (x - 1) * 100),
      met: Math.abs(pct) <= TARGET_SCALE_PCT,
    };
  });

function scaleJson(s: ScaleResult): Record<string, unknown> {
  return {
    mode: s.scenario.mode,
    durable: s.scenario.mode === 'durable',
    workers: s.scenario.workers,
    connections: s.scenario.connections,
    pool: s.scenario.pool,
    history_traces: s.history,
    rounds: s.roundRatios.authorize.length,
    max_change_pct: TARGET_SCALE_PCT,
    routes: scaleChanges(s).map((c) => ({
      route: c.route,
      history: routeJson(c.stored, null),
      empty: routeJson(c.empty, null),
      change_pct: c.pct,
      round_changes_pct: c.rounds,
      result: c.met ? 'MET' : 'NOT MET',
    })),
  };
}

function scaleReport(s: ScaleResult): string[] {
  const changes = scaleChanges(s);
  return [
    '',
    `== scale run: ${label(s.scenario)}, ${s.history.toLocaleString('en-US')} traces stored against an empty store (another database of the same server),`,
    `   both servers up, the stores taken in turns in ${s.roundRatios.authorize.length} rounds, in two blocks whose servers were started in opposite orders`,
    table([
      ['route', 'history req/s', 'empty req/s', 'change', 'history p99 ms', 'empty p99 ms', `within ±${TARGET_SCALE_PCT}%`],
      ...changes.map((c) => [
        c.route,
        fmt(c.stored.result.rps, 0),
        fmt(c.empty.result.rps, 0),
        `${fmt(c.pct, 1)}%`,
        fmt(c.stored.result.latency.p99, 2),
        fmt(c.empty.result.latency.p99, 2),
        c.met ? 'MET' : 'NOT MET',
      ]),
    ]),
    ...changes.map((c) => `per round, ${c.route} with history ÷ without: ${ratios(c.rounds.map((x) => 1 + x / 100))}`),
    ...[
      ...changes
        .flatMap((c) => [c.stored, c.empty])
        .filter((m) => m.note)
        .map((m) => `note: ${m.route}: ${m.note}`),
    ],
    '',
    ...cpuTable(
      changes.flatMap((c) => [
        { ...c.stored, route: `${c.route} (history)` },
        { ...c.empty, route: `${c.route} (empty)` },
      ]),
    ),
  ];
}

function comparisonJson(c: ComparisonResult): Record<string, unknown> {
  return {
    mode: c.scenario.mode,
    durable: c.scenario.mode === 'durable',
    workers: c.scenario.workers,
    connections: c.scenario.connections,
    pool: c.scenario.pool,
    settings: Object.fromEntries(c.settings),
    rounds: c.lines[0]?.roundsVaried.length ?? 0,
    lines: c.lines.map((l) => ({
      what: l.what,
      plain: l.plain,
      varied: l.varied,
      change_pct: l.changePct,
      rounds_plain: l.roundsPlain,
      rounds_varied: l.roundsVaried,
    })),
    routes: COMPARE_KEYS.map((k) => routeJson({ ...c.measured[k], route: k }, null)),
  };
}

function comparisonReport(c: ComparisonResult): string[] {
  const given = settingsText(c.settings);
  return [
    '',
    `== comparison run: ${label(c.scenario)}, a server with the harness's settings (plain) against one with ${given},`,
    `   two new stores (databases of the same server), both servers up, their routes taken in turns in ${c.lines[0]?.roundsVaried.length ?? 0} rounds, in two blocks`,
    '   whose servers were started in opposite orders',
    table([
      ['', 'plain', given, 'change'],
      ...c.lines.map((l) => {
        const digits = l.roundsPlain ? 3 : 0;
        return [l.what, fmt(l.plain, digits), fmt(l.varied, digits), `${fmt(l.changePct, 1)}%`];
      }),
    ]),
    ...c.lines.flatMap((l) =>
      l.roundsPlain
        ? [`per round, ${l.what}: plain ${ratios(l.roundsPlain)}; with ${given} ${ratios(l.roundsVaried)}`]
        : [`per round, ${l.what} with ${given} ÷ plain: ${ratios(l.roundsVaried)}`],
    ),
    '',
    ...cpuTable(COMPARE_KEYS.map((k) => ({ ...c.measured[k], route: k }))),
  ];
}

/** What the report says of how the load was run, and where the JSON goes. */
export interface ReportOptions {
  seconds: number;
  rounds: number;
  warmup: number;
  out: string;
}

/** Prints the report and writes its JSON to `opt.out`. */
export function report(opt: ReportOptions, loadBefore: number[], machine: Record<string, unknown>, db: BenchDatabase, runs: Runs, profiles: Profiled[]): void {
  const out: string[] = [];
  out.push('');
  out.push('tradeseal engine benchmark');
  out.push(`machine: ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node}, ${db.version}, ${machine.os}`);
  out.push(
    `  the load generator (autocannon ${versionOf('autocannon')}, this process), the engine server (child process and its workers) and PostgreSQL share these ${machine.cores} cores`,
  );
  out.push(`database: ${db.description}`);
  out.push(`load average before the run: ${loadBefore.map((l) => l.toFixed(2)).join(', ')} (1, 5, 15 min)`);
  out.push(
    `load: pipelining 1, ${opt.seconds} s measured per route after ${opt.warmup} s of warm-up, in ${opt.rounds} rounds of ${fmt(opt.seconds / opt.rounds, 2)} s taken in turns`,
  );
  out.push(
    `engine: LAYER2_ENABLED=true (a fresh signed heartbeat per authorize), the default policy (message throttle ${runs.throttle ?? 'off'} orders/s per agent),`,
  );
  out.push(`  ${runs.agents} agents with a client token each, taken in turns by the connections (so the throttle refuses none)`);

  // The summary: every scenario on one line each, the targets beside.
  out.push('');
  out.push(
    `summary (targets: authorize req/s >= ${TARGET_AUTHORIZE_RELATIVE} x floor-verify's, bind req/s >= ${TARGET_BIND_RELATIVE} x the 1-INSERT floor's, both p99 < ${TARGET_P99_RATIO} x the`,
  );
  out.push(`  1-INSERT floor's p99, RSS < ${TARGET_RSS_MB} MB per worker)`);
  const all = runs.results;
  out.push(
    table([
      ['scenario', 'floor req/s', 'floor p99', 'verify req/s', 'authorize req/s', 'x verify', 'p99 x', 'bind req/s', 'x floor', 'p99 x', 'RSS MB', 'targets'],
      ...all.map((r) => {
        const [a, b] = targetsOf(r) as [Target, Target];
        const rssMet = r.rssPeakMb.every((v) => !(v >= TARGET_RSS_MB));
        const met = a.throughputMet && a.p99Met && b.throughputMet && b.p99Met && rssMet;
        return [
          label(r.scenario),
          fmt(r.floor.result.rps, 0),
          fmt(r.floor.result.latency.p99, 1),
          fmt(r.verifyFloor.result.rps, 0),
          fmt(r.authorize.result.rps, 0),
          `${fmt(a.relative, 2)}x`,
          `${fmt(a.p99Ratio, 2)}x`,
          fmt(r.bind.result.rps, 0),
          `${fmt(b.relative, 2)}x`,
          `${fmt(b.p99Ratio, 2)}x`,
          fmt(Math.max(...r.rssPeakMb), 0),
          met ? 'MET' : 'NOT MET',
        ];
      }),
    ]),
  );
  if (runs.scale) {
    const changes = scaleChanges(runs.scale)
      .map((c) => `${c.route.replace(/^POST \/engine\//, '')} ${fmt(c.pct, 1)}%`)
      .join(', ');
    out.push(
      `scale run (${runs.scale.history.toLocaleString('en-US')} traces stored against an empty store, taken in turns): ${changes} req/s (target: within ±${TARGET_SCALE_PCT}%)`,
    );
  }
  out.push("  read the p99 with Little's law in mind: a closed-loop generator keeps N requests in the system, so at saturation mean");
  out.push("  latency = N / req/s whatever the engine does; the p99 target is relative to the floor's p99 in the same scenario.");
  for (const [i, r] of all.entries()) out.push(...scenarioReport(r, db, i === 0));
  if (runs.scale) out.push(...scaleReport(runs.scale));
  if (runs.comparison) out.push(...comparisonReport(runs.comparison));

  if (runs.single.length > 0) {
    out.push('');
    out.push(
      `service time (${label((runs.results[0] as ScenarioResult).scenario).replace(/, \d+ connections/, '')}, 1 connection: no request waits behind another):`,
    );
    out.push(
      table([
        ['route', 'req/s', 'p50 ms', 'p99 ms', 'errors', `p99 < ${TARGET_SERVICE_P99_MS} ms`],
        ...runs.single.map((r, i) => [
          r.route,
          fmt(r.rps, 0),
          fmt(r.latency.p50, 2),
          fmt(r.latency.p99, 2),
          String(r.non2xx + r.socketErrors),
          i === 0 ? '' : r.latency.p99 < TARGET_SERVICE_P99_MS ? 'MET' : 'NOT MET',
        ]),
      ]),
    );
  }
  if (profiles.length > 0) {
    out.push('');
    out.push("CPU profiles of the server's main thread (first scenario; with several workers, the first worker; self time, µs per");
    out.push('2xx request, by area; profiling slows the server, so read the columns against each other, not against the CPU table):');
    const names = new Set<string>();
    for (const p of profiles) for (const a of p.summary.areas.slice(0, 14)) names.add(a.name);
    const perRequest = (p: Profiled, name: string): number | null => {
      const a = p.summary.areas.find((x) => x.name === name);
      return p.handled > 0 ? ((a?.ms ?? 0) * 1000) / p.handled : null;
    };
    // Areas in the order of authorize's cost (the route the engine's targets are about).
    const lead = profiles.find((p) => p.route.includes('/engine/authorize')) ?? (profiles[0] as Profiled);
    const ordered = [...names].sort((x, y) => (perRequest(lead, y) ?? 0) - (perRequest(lead, x) ?? 0));
    out.push(
      table([
        ['area', ...profiles.map((p) => p.route.replace(/^(GET|POST) /, '').replace(' (diagnostic)', ''))],
        ...ordered.map((name) => [name, ...profiles.map((p) => fmt(perRequest(p, name), 0))]),
        ['(all busy time)', ...profiles.map((p) => fmt(p.handled > 0 ? (p.summary.busyMs * 1000) / p.handled : null, 0))],
      ]),
    );
    for (const p of profiles.filter((x) => x.route.includes('/engine/'))) {
      out.push('');
      out.push(`top functions of ${p.route} by self time (${p.file}):`);
      out.push(
        table([
          ['self %', 'µs/req', 'function'],
          ...p.summary.functions.map((f) => [fmt(f.share * 100, 1), fmt(p.handled > 0 ? (f.ms * 1000) / p.handled : null, 0), f.name]),
        ]),
      );
    }
  }
  out.push('');
  mkdirSync(path.dirname(opt.out), { recursive: true });
  const json = {
    generated_at: new Date().toISOString(),
    machine: { ...machine, load_average_before: loadBefore },
    database: { description: db.description, version: db.version },
    load: { pipelining: 1, seconds: opt.seconds, rounds: opt.rounds, warmup_seconds: opt.warmup, autocannon: versionOf('autocannon') },
    targets: {
      routes: {
        'POST /engine/authorize': { against: VERIFY_FLOOR_NAME, min_relative: TARGET_AUTHORIZE_RELATIVE },
        'POST /engine/bind-execution': { against: FLOOR_NAME, min_relative: TARGET_BIND_RELATIVE },
      },
      max_p99_relative: TARGET_P99_RATIO,
      max_rss_mb: TARGET_RSS_MB,
      max_scale_change_pct: TARGET_SCALE_PCT,
      max_service_p99_ms: TARGET_SERVICE_P99_MS,
    },
    scenarios: runs.results.map(scenarioJson),
    scale: runs.scale ? scaleJson(runs.scale) : null,
    comparison: runs.comparison ? comparisonJson(runs.comparison) : null,
    single_connection: runs.single.map((r) => ({
      route: r.route,
      rps: r.rps,
      latency_ms: r.latency,
      responses: r.responses,
      errors: r.non2xx + r.socketErrors,
      status_counts: r.statusCounts,
    })),
    profiles: profiles.map((p) => ({ route: p.route, file: p.file, server_2xx: p.handled, ...p.summary })),
  };
  writeFileSync(opt.out, `${JSON.stringify(json, null, 2)}\n`);
  out.push(`written: ${path.relative(process.cwd(), opt.out)}`);
  console.log(out.join('\n'));
}
