/**
 * What `tradeseal demo` prints: the cases as a table, then what a compliance officer should look at next. On
 * a narrow terminal the detail and the agent's name give way (the table says so; `--json` has them): the
 * case, the answer, the trace and its status are what the demo shows.
 */
import type { DemoSummary } from '../demo/run.js';
import { renderTable, type TableStyle } from './table.js';
import { wrapText } from './wrap.js';

export function renderDemo(s: DemoSummary, style: TableStyle = {}): string {
  const table = renderTable(
    ['case', 'agent', { name: 'answer', priority: 'keep' }, 'trace_id', 'status', { name: 'detail', priority: 'give-way' }],
    s.cases.map((c) => [c.case, c.agent, c.answer, c.trace_id ?? '', c.status, c.detail]),
    { shortIds: true, ...style, reveal: '--json' },
  );
  const divergent = s.cases.find((c) => c.status === 'DIVERGENT')?.trace_id?.slice(0, 8);
  return [
    table,
    '',
    "what a compliance officer looks at next, on the demo's store:",
    `  export TRADESEAL_HOME=${s.home}; unset DATABASE_URL`,
    '  tradeseal engine orphans                 the traces that need attention',
    '  tradeseal engine dropcopy status         the FIX session it came through',
    ...(divergent
      ? [
          `  tradeseal engine traces verify ${divergent}  recompute a trace's hashes`,
          `  tradeseal engine log verify ${divergent}     its place in the signed log`,
        ]
      : []),
    '  tradeseal engine audit-log               who did what, refusals included',
    '  tradeseal engine audit-log verify        the audit chain, hash by hash',
    // Prose is wrapped to the terminal; the commands above are not, so each still pastes whole.
    ...(s.stale_regime
      ? [
          '',
          wrapText(`the bundled data end on ${s.stale_regime.date}: the engine refuses orders on them (regime_stale).`, style.width),
          wrapText(`the demo ran on an operator broadcast of ${s.stale_regime.regime}${s.released ? ', released since' : ''}.`, style.width),
        ]
      : []),
  ].join('\n');
}
