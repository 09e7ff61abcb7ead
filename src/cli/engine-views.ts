/**
 * Terminal views of the engine's records for the operator commands: plain text, no colours, one function
 * per record. They only present what the command loaded; `--json` returns the records themselves.
 */
import type { AgentView } from '../engine/ops/agent-details.js';
import type { RegimeBroadcast } from '../store/regime-broadcasts.js';
import type { ShadowMode } from '../engine/store/shadow.js';
import type { IssuedToken, TokenRecord } from '../engine/store/tokens.js';
import type { TraceVerification } from '../engine/trace/read.js';
import { REGIMES } from '../core/vocabulary.js';
import { renderTable, type TableStyle } from './table.js';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** Aligned `key  value` lines. */
export function renderFields(fields: Array<[string, string | number | null | undefined]>): string {
  const width = Math.max(...fields.map(([k]) => k.length));
  return fields.map(([k, v]) => `${k.padEnd(width)}  ${v === null || v === undefined ? '-' : String(v)}`).join('\n');
}

export function tokenState(t: TokenRecord, now = Date.now()): 'live' | 'revoked' | 'expired' {
  if (t.revoked_at) return 'revoked';
  return t.expires_at && t.expires_at.getTime() <= now ? 'expired' : 'live';
}

/** A freshly issued token: the secret once, with the warning that it will not be shown again. */
export function renderIssuedToken(t: IssuedToken): string {
  return [
    t.token,
    '',
    renderFields([
      ['token_id', t.token_id],
      ['client_name', t.client_name],
      ['role', t.role],
      ['agent_ids', t.agent_ids?.join(', ') ?? 'all'],
      ['created_at', iso(t.created_at)],
      ['expires_at', iso(t.expires_at) ?? 'never'],
    ]),
    '',
    'Save this token now: it is shown once, and the store keeps only its SHA-256.',
  ].join('\n');
}

export function renderTokens(tokens: TokenRecord[], style: TableStyle = {}): string {
  if (tokens.length === 0) return 'no tokens (the first owner token: tradeseal engine tokens bootstrap)';
  return renderTable(
    ['token_id', 'client_name', 'role', 'state', 'agent_ids', 'created_at', 'expires_at'],
    tokens.map((t) => [t.token_id, t.client_name, t.role, tokenState(t), t.agent_ids?.join(',') ?? 'all', iso(t.created_at), iso(t.expires_at) ?? 'never']),
    style,
  );
}

/** An agent's name, or what stands in for it once erased. */
const agentName = (a: AgentView): string => a.name ?? (a.erased ? '(erased)' : '-');

/** `style` fits the models table to a terminal, two columns in from its edge. */
export function renderAgent(a: AgentView, style: TableStyle = {}): string {
  return [
    renderFields([
      ['agent_id', a.agent_id],
      ['name', agentName(a)],
      ['status', a.status_reason ? `${a.status} (${a.status_reason})` : a.status],
      ['max_notional', a.max_notional],
      ['max_open_notional', a.max_open_notional ?? 'none'],
      ['allowed_regimes', a.allowed_regimes?.join(', ') ?? 'all'],
      ['created_at', iso(a.created_at)],
    ]),
    'models:',
    a.models.length === 0
      ? '  none'
      : renderTable(
          ['model_id', 'model_hash_hex'],
          a.models.map((m) => [m.model_id, m.model_hash_hex]),
          { ...style, width: style.width ? style.width - 2 : style.width },
        ).replace(/^/gm, '  '),
  ].join('\n');
}

export function renderAgents(agents: AgentView[], style: TableStyle = {}): string {
  if (agents.length === 0) return 'no agents (register one: tradeseal engine agents register)';
  return renderTable(
    ['agent_id', { name: 'name', priority: 'keep' }, 'status', 'max_notional', 'allowed_regimes', 'models', 'created_at'],
    agents.map((a) => [
      a.agent_id,
      agentName(a),
      a.status,
      a.max_notional,
      a.allowed_regimes?.join(',') ?? 'all',
      a.models.map((m) => m.model_id).join(','),
      iso(a.created_at),
    ]),
    style,
  );
}

export function renderBroadcast(b: RegimeBroadcast): string {
  return renderFields([
    ['regime', `${b.regime} (regime_id ${b.regime_id})`],
    ['risk_score', b.risk_score],
    ['date', b.date],
    ['probabilities', REGIMES.map((r) => `${r} ${b.probabilities[r]}`).join(', ')],
    ['model_version', b.model_version],
    ['source', b.source],
    ['reason', b.reason],
    ['published_by', b.published_by],
    ['published_at', iso(b.published_at)],
    ['hash', b.hash],
  ]);
}

export function renderShadow(s: ShadowMode): string {
  const head = s.enabled
    ? 'shadow mode is ON: policy violations are recorded as SHADOW_HALTED traces and the orders pass'
    : 'shadow mode is OFF: policy violations are refused (403)';
  return [
    head,
    renderFields([
      ['reason', s.reason],
      ['changed_at', iso(s.changed_at)],
      ['changed_by', s.changed_by],
    ]),
  ].join('\n');
}

export function renderVerification(v: TraceVerification): string {
  const lines = v.checks.map((c) => `${c.ok ? '✓' : '✗'} ${c.check}: ${c.detail}`);
  const failed = v.checks.filter((c) => !c.ok).length;
  const verdict = v.valid ? `trace ${v.trace_id} is valid` : `trace ${v.trace_id} is NOT valid: ${failed} of ${v.checks.length} checks failed`;
  return [...lines, verdict].join('\n');
}
