/**
 * Terminal views of the FIX drop-copy session (`tradeseal engine dropcopy status|rejects`, the line of the
 * terminal view): its state and counts as aligned fields, each instant with its age, and the refused messages
 * as a table. They only present what the command loaded; `--json` returns the records themselves.
 */
import type { DropCopyReject, DropCopyStatus } from '../engine/dropcopy/status.js';
import { renderFields } from './engine-views.js';
import { renderTable, type TableStyle } from './table.js';

/** How long ago `then` was, at `now`, in the largest units that say it (`4 s`, `12 min`, `2 h 5 min`, `3 d 4 h`). */
export function age(then: Date, now: Date): string {
  const s = Math.max(0, Math.floor((now.getTime() - then.getTime()) / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`;
}

/** An instant with its age, or `never`. */
const when = (d: Date | null, now: Date): string => (d ? `${d.toISOString()} (${age(d, now)} ago)` : 'never');

export function renderDropCopyStatus(s: DropCopyStatus): string {
  const now = s.checked_at;
  if (!s.session) {
    if (!s.configured) return s.summary;
    return [
      s.summary,
      '',
      renderFields([
        ['session_key', s.configured.session_key],
        ['role', s.configured.role],
        ['peer', `${s.configured.host}:${s.configured.port}`],
      ]),
    ].join('\n');
  }
  const r = s.session;
  const f = s.fills;
  const fields: Array<[string, string | number | null]> = [
    ['session_key', r.session_key],
    ['role', r.role],
    ['state', r.state],
    ['owner', r.owner],
    ['next_sender_seq', r.next_sender_seq],
    ['next_target_seq', r.next_target_seq],
    ['last_inbound_at', when(r.last_inbound_at, now)],
    ['last_outbound_at', when(r.last_outbound_at, now)],
    ['last_logon_at', when(r.last_logon_at, now)],
    ['fills', `${f.total}: ${f.matched} matched, ${f.divergent} divergent, ${f.orphan} orphan, ${f.already_known} already_known`],
    ['last_fill_at', when(s.last_fill_at, now)],
    ['orphans_resolved', s.orphans_resolved],
    ['conflicts', s.conflicts],
    ['last_conflict_at', when(s.last_conflict_at, now)],
    ['rejects', s.rejects === 0 ? '0' : `${s.rejects} (tradeseal engine dropcopy rejects lists them)`],
    ['last_reject_at', when(s.last_reject_at, now)],
  ];
  return [renderFields(fields), ...(s.configured ? [] : ['', 'FIX_DROPCOPY_ROLE is unset here: this is the session a server last ran.'])].join('\n');
}

/**
 * The terminal view's line (src/cli/attention/): the state, how long since the peer last spoke, and how many
 * messages were refused, and the divergent fills and ExecID conflicts on record; null when no session is configured
 * or ever ran (nothing for the officer to watch).
 * Short enough for 80 columns: the counts of fills are `engine dropcopy status`'s, the orphans the view's tab.
 */
export function dropCopyLine(s: DropCopyStatus): { text: string; tone: 'ok' | 'warn' | 'bad' } | null {
  if (!s.session) return s.configured ? { text: `FIX drop copy ${s.configured.session_key}: configured, not started`, tone: 'bad' } : null;
  const r = s.session;
  const heard = r.last_inbound_at ? ` · last message ${age(r.last_inbound_at, s.checked_at)} ago` : '';
  const refused = s.rejects > 0 ? ` · ${s.rejects} refused message${s.rejects === 1 ? '' : 's'}` : '';
  const divergent = s.fills.divergent > 0 ? ` · ${s.fills.divergent} divergent fill${s.fills.divergent === 1 ? '' : 's'}` : '';
  const conflicting = s.conflicts > 0 ? ` · ${s.conflicts} ExecID conflict${s.conflicts === 1 ? '' : 's'}` : '';
  const tone = r.state !== 'logged_on' ? 'bad' : s.rejects > 0 || s.fills.divergent > 0 || s.conflicts > 0 ? 'warn' : 'ok';
  return { text: `FIX drop copy ${r.state}${heard}${divergent}${conflicting}${refused}`, tone };
}

/**
 * The refused messages as a table. On a narrow terminal the reason is what the officer reads, so it stays (cut)
 * while the codes and the raw message, which `--columns` or `--wide` show whole, give way.
 */
export function renderDropCopyRejects(rejects: DropCopyReject[], style: TableStyle = {}): string {
  if (rejects.length === 0) return 'no refused messages';
  return renderTable(
    [
      'received_at',
      'seq',
      'msg_type',
      { name: 'answer', priority: 'keep' },
      { name: 'reason', priority: 'normal' },
      { name: 'reason_code', priority: 'give-way' },
      { name: 'ref_tag', priority: 'give-way' },
      { name: 'raw', priority: 'give-way' },
    ],
    rejects.map((r) => [r.received_at.toISOString(), r.seq, r.msg_type, r.answer, r.reason, r.reason_code, r.ref_tag, r.raw]),
    style,
  );
}
