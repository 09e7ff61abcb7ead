/** Terminal rendering of pipeline runs: the listr2 stage runner (with progress within a stage) and the closing summary. */
import { Listr } from 'listr2';
import { progressTty, toStderr } from './progress.js';
import { timed, type RunSummary, type StageRunner } from '../signals/publish/run.js';
import { dataDayEnd, humanAge } from '../engine/policy/freshness.js';
import { renderTable } from './table.js';

/**
 * Shows each stage as it runs: an animated list on a terminal, whose current stage shows its progress
 * (refit n of N) as it goes; plain lines under cron or in a pipe, where the progress is a line every tenth
 * of the way, so a log stays short.
 */
export function listrRunner(silent: boolean): StageRunner {
  const tty = progressTty();
  return async (stages, ctx) => {
    await new Listr(
      stages.map((stage) => ({
        title: stage.title,
        rendererOptions: { outputBar: 1 },
        task: async (_: unknown, task: { title: string; output: string }) => {
          let lastTenth = -1;
          ctx.report = (text) => {
            const m = /(\d+) of (\d+)/.exec(text);
            const tenth = m ? Math.floor((10 * Number(m[1])) / Number(m[2])) : lastTenth + 1;
            if (!tty && tenth === lastTenth) return;
            lastTenth = tenth;
            task.output = text;
          };
          try {
            const note = await timed(stage, ctx);
            task.title = `${stage.title}: ${note ?? 'done'} (${ctx.timings[stage.key]} ms)`;
          } finally {
            delete ctx.report;
          }
        },
      })),
      {
        concurrent: false,
        exitOnError: true,
        renderer: silent ? 'silent' : 'default',
        fallbackRenderer: silent ? 'silent' : 'simple',
        fallbackRendererCondition: !tty,
        ...toStderr(),
      },
    ).run();
  };
}

export function renderRunSummary(s: RunSummary, now = Date.now()): string {
  const range = `${s.first_day ?? '-'} to ${s.last_day ?? '-'}`;
  const lines = s.published
    ? [`run ${s.run_id} (${s.mode}): published ${s.days} ${s.mode === 'incremental' ? 'new ' : ''}trading days (${range})`]
    : [`what-if as of ${s.as_of} (${s.mode}): computed ${s.days} trading days (${range}); nothing was published (add --publish to write a backfill)`];
  if (s.plan && s.plan.published.days > 0 && s.plan.mode === 'full') {
    lines.push(`history: ${s.plan.added} added, ${s.plan.changed} rewritten, ${s.plan.unchanged} unchanged, ${s.plan.removed} removed`);
  }
  if (s.latest) {
    const p = s.latest.probabilities;
    lines.push(
      `regime on ${s.latest.date}: ${s.latest.regime} (risk_score ${s.latest.risk_score.toFixed(3)}, confidence ${s.latest.confidence})`,
      renderTable(['expansion', 'recovery', 'tightening', 'risk_off'], [[p.expansion, p.recovery, p.tightening, p.risk_off].map((v) => (v ?? 0).toFixed(4))]),
    );
    if (s.published) lines.push(`data of ${s.latest.date}: ${humanAge(now - dataDayEnd(s.latest.date))} old`);
  }
  const next = s.forecast[0];
  if (next)
    lines.push(
      `forecast for ${next.date}: ${next.regime} (confidence ${next.confidence.toFixed(2)}); ${s.forecast.length} days to ${s.forecast.at(-1)!.date} (\`tradeseal signals forecast\`)`,
    );
  if (s.performance) {
    const p = s.performance;
    const pct = (x: number | null): string => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);
    lines.push(
      `regime strategy over ${p.days} days: Sharpe ${p.sharpe?.toFixed(2) ?? '-'}, total return ${pct(p.total_return)}, max drawdown ${pct(p.max_drawdown)} (\`tradeseal signals performance\`)`,
    );
  }
  if (s.override) {
    const o = s.override;
    lines.push(
      `the operator's override #${o.id} stays in force: ${o.regime} (by ${o.published_by ?? 'unknown'}${o.reason ? `: "${o.reason}"` : ''}); the model says ${s.latest?.regime ?? '-'} on ${s.latest?.date ?? '-'}. Lift it with \`tradeseal regime release\`.`,
    );
  } else if (s.published) {
    lines.push(`broadcast hash (heartbeats' mta_ref): ${s.broadcast_hash ?? '-'}`);
  }
  const total = Object.values(s.timings_ms).reduce((a, b) => a + b, 0);
  lines.push(
    `timings: ${Object.entries(s.timings_ms)
      .map(([k, v]) => `${k} ${v} ms`)
      .join(', ')}; total ${total} ms`,
  );
  for (const w of s.warnings) lines.push(`warning: ${w}`);
  return lines.join('\n');
}
