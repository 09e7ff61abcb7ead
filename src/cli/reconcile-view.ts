/** The terminal view of a reconciliation for `tradeseal engine reconcile FILE`: the counts, then what needs a look. */
import type { ReconcileReport } from '../engine/reconcile/reconcile.js';
import { renderTable, type TableStyle } from './table.js';

/** Rows listed per table on a terminal; `--json` gives every one. */
const SHOWN = 20;

const more = (n: number): string => (n > SHOWN ? `\n… and ${n - SHOWN} more (--json lists every one)` : '');

/** `style` fits the tables to a terminal (the prose is wrapped by the command). */
export function renderReconcileReport(r: ReconcileReport, style: TableStyle = {}): string {
  const c = r.counts;
  const lines = [
    `drop copy of ${r.executions} execution${r.executions === 1 ? '' : 's'}, window ${r.window.from} to ${r.window.to}, ${r.agent_ids.length} agent${r.agent_ids.length === 1 ? '' : 's'}`,
    `matched ${c.matched}, divergent ${c.divergent}, orphans created ${c.orphans_created}, already known orphans ${c.already_known}, bound traces missing from the drop copy ${c.missing}`,
  ];
  if (c.divergent > 0) {
    lines.push(
      '',
      'executions that differ from their authorization or bind:',
      renderTable(
        ['exchange_tx_id', 'trace_id', 'field', 'ours', 'theirs'],
        r.divergent.slice(0, SHOWN).flatMap((d) => d.differences.map((x) => [d.exchange_tx_id, d.trace_id, x.field, x.ours, x.theirs])),
        style,
      ) + more(c.divergent),
    );
  }
  if (c.orphans_created > 0) {
    lines.push(
      '',
      'ORPHAN traces created (executions no trace was bound to):',
      renderTable(
        ['exchange_tx_id', 'trace_id', 'agent_id'],
        r.orphans_created.slice(0, SHOWN).map((o) => [o.exchange_tx_id, o.trace_id, o.agent_id]),
        style,
      ) + more(c.orphans_created),
    );
  }
  if (c.missing > 0) {
    lines.push(
      '',
      'bound traces the drop copy does not list:',
      renderTable(
        ['execution_time', 'exchange_tx_id', 'trace_id', 'agent_id'],
        r.missing.slice(0, SHOWN).map((m) => [m.execution_time, m.exchange_tx_id, m.trace_id, m.agent_id]),
        style,
      ) + more(c.missing),
    );
  }
  lines.push('', `audit-log entry ${r.audit_entry_id}`);
  return lines.join('\n');
}
