/** Terminal rendering of pipeline runs: the listr2 stage runner and the closing summary. */
import { Listr } from 'listr2';
import { timed, type RunSummary, type StageRunner } from '../../pipeline/run.js';
import { renderTable } from './table.js';

/** Shows each stage as it runs (an animated list on a terminal, plain lines under cron or in a pipe). */
export function listrRunner(silent: boolean): StageRunner {
  return async (stages, ctx) => {
    await new Listr(
      stages.map((stage) => ({
        title: stage.title,
        task: async (_: unknown, task: { title: string }) => {
          const note = await timed(stage, ctx);
          task.title = `${stage.title}: ${note ?? 'done'} (${ctx.timings[stage.key]} ms)`;
        },
      })),
      {
        concurrent: false,
        exitOnError: true,
        renderer: silent ? 'silent' : 'default',
        fallbackRenderer: silent ? 'silent' : 'simple',
        fallbackRendererCondition: !process.stdout.isTTY,
      },
    ).run();
  };
}

export function renderRunSummary(s: RunSummary): string {
  const lines = [`run ${s.run_id} (${s.mode}): published ${s.days} ${s.mode === 'incremental' ? 'new ' : ''}trading days (${s.first_day ?? '-'} to ${s.last_day ?? '-'})`];
  if (s.latest) {
    const p = s.latest.probabilities;
    lines.push(
      `regime on ${s.latest.date}: ${s.latest.regime} (risk_score ${s.latest.risk_score.toFixed(3)}, confidence ${s.latest.confidence})`,
      renderTable(['expansion', 'recovery', 'tightening', 'risk_off'], [[p.expansion, p.recovery, p.tightening, p.risk_off].map((v) => (v ?? 0).toFixed(4))]),
      `broadcast hash (heartbeats' mta_ref): ${s.broadcast_hash ?? '-'}`,
    );
  }
  const total = Object.values(s.timings_ms).reduce((a, b) => a + b, 0);
  lines.push(`timings: ${Object.entries(s.timings_ms).map(([k, v]) => `${k} ${v} ms`).join(', ')}; total ${total} ms`);
  for (const w of s.warnings) lines.push(`warning: ${w}`);
  return lines.join('\n');
}
