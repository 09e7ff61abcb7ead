/**
 * Reading a stored trace back in the Reasoning_Trace_v1 layout, and verifying it: recompute
 * `reasoning_hash` from the sealed text (re-canonicalised, so a reformatted or edited text is caught), the
 * regulatory commitment from the personal data and its salt, `final_proof` from the hash and the
 * exchange_tx_id, and check the listing columns against the sealed facts.
 *
 * Pure: the personal data come decrypted (src/engine/ops/trace-personal.ts). After an erasure they are gone
 * and the sealed commitment stands in for them: the document reads `regulatory: null` with
 * `integrity.erased: true`, and verification accepts the missing block only when an erasure destroyed the
 * agent's data key; a block missing without one is still reported as tampering.
 */
import { canonicalJson } from '../../core/crypto/jcs.js';
import { sha256Hex } from '../../core/crypto/hash.js';
import { NO_RECONCILIATION, type TraceReconciliation } from '../reconcile/trace-view.js';
import type { TraceRow } from '../store/traces.js';
import type { SealedTrace } from './document.js';
import { finalProof, regulatoryCommitment, type RegulatoryBlock } from './seal.js';

/** A trace's personal data as read: in the clear, or decrypted, or erased. */
export interface TracePersonal {
  regulatory: RegulatoryBlock | null;
  salt: Buffer | null;
  /** When the agent was erased; null when not. */
  erasedAt: Date | null;
  /** The erasure is backed by a destroyed data key of the agent (a mark set by hand in the store is not). */
  erasureConfirmed: boolean;
  /** Why stored personal data could not be read (altered, moved from another row); null when they could. */
  problem: string | null;
}

/** The personal data of a row stored without a provider, or of a row with none: no decryption needed. */
export const plainPersonal = (row: Pick<TraceRow, 'regulatory' | 'regulatory_salt'>): TracePersonal => ({
  regulatory: row.regulatory as RegulatoryBlock | null,
  salt: row.regulatory_salt,
  erasedAt: null,
  erasureConfirmed: false,
  problem: null,
});

/**
 * The served document: the sealed document with its personal data, and `integrity`, which holds every
 * field that is not sealed. Without `integrity`, and `regulatory` replaced by `{commitment}` (null when
 * `integrity.regulatory_commitment` is null), it is the sealed document, byte for byte once in JCS.
 */
export function traceDocument(row: TraceRow, personal: TracePersonal, reconciliation: TraceReconciliation = NO_RECONCILIATION): Record<string, unknown> {
  const sealed = JSON.parse(row.sealed) as SealedTrace;
  const commitment = sealed.regulatory?.commitment ?? null;
  return {
    ...sealed,
    regulatory: personal.regulatory,
    integrity: {
      status: row.status,
      reasoning_hash: row.reasoning_hash,
      verification_status: row.verification_status,
      execution_status: row.execution_status,
      final_proof: row.final_proof,
      regulatory_commitment: commitment,
      regulatory_salt: personal.regulatory && personal.salt ? personal.salt.toString('hex') : null,
      exchange_tx_id: row.exchange_tx_id,
      divergence_reason: row.divergence_reason,
      execution_time: row.execution_time ? row.execution_time.toISOString() : null,
      erased: personal.erasedAt !== null,
      erased_at: personal.erasedAt ? personal.erasedAt.toISOString() : null,
      reconciliation,
    },
  };
}

export interface VerifyCheck {
  check: string;
  ok: boolean;
  detail: string;
}

export interface TraceVerification {
  trace_id: string;
  valid: boolean;
  reasoning_hash: { stored: string; recomputed: string; ok: boolean };
  final_proof: { stored: string | null; recomputed: string | null; ok: boolean | null };
  checks: VerifyCheck[];
}

export function verifyTrace(row: TraceRow, personal: TracePersonal): TraceVerification {
  const checks: VerifyCheck[] = [];
  let sealed: SealedTrace | null = null;
  try {
    sealed = JSON.parse(row.sealed) as SealedTrace;
  } catch {
    checks.push({ check: 'sealed_text', ok: false, detail: 'the stored sealed text is not JSON' });
  }
  const recomputedHash = sha256Hex(row.sealed);
  const hashOk = recomputedHash === row.reasoning_hash;
  checks.push({
    check: 'reasoning_hash',
    ok: hashOk,
    detail: hashOk ? 'SHA-256 of the sealed text equals the stored reasoning_hash' : `recomputed ${recomputedHash} ≠ stored ${row.reasoning_hash}`,
  });
  if (sealed) {
    const canonical = canonicalJson(sealed) === row.sealed;
    checks.push({
      check: 'canonical_form',
      ok: canonical,
      detail: canonical ? 'the sealed text is in RFC 8785 canonical form' : 'the sealed text is not canonical: it was reformatted or edited',
    });
    const facts: Array<[string, unknown, unknown]> = [
      ['trace_id', sealed.trace_id, row.trace_id],
      ['agent_id', sealed.agent.agent_id, row.agent_id],
      ['action', sealed.execution.action, row.action],
      ['asset', sealed.execution.asset, row.asset],
      ['quantity', sealed.execution.quantity, row.quantity],
      ['notional', sealed.execution.notional, row.notional],
      ['notional_currency', sealed.execution.notional_currency, row.notional_currency],
      // An ORPHAN trace whose drop copy gave no client_order_id seals null and stores '' (the column is NOT NULL).
      ['client_order_id', sealed.execution.client_order_id ?? '', row.client_order_id],
      ['txn_time', sealed.bitemporal.txn_time, row.txn_time.toISOString()],
    ];
    const off = facts.filter(([, a, b]) => a !== b);
    checks.push({
      check: 'listing_columns',
      ok: off.length === 0,
      detail:
        off.length === 0
          ? 'listing columns agree with the sealed trace'
          : `differ from the sealed trace: ${off.map(([f, a, b]) => `${f} sealed ${String(a)} stored ${String(b)}`).join('; ')}`,
    });
    const regulatoryCheck = checkRegulatory(sealed.regulatory?.commitment ?? null, personal);
    if (regulatoryCheck) checks.push(regulatoryCheck);
  }
  let proof: TraceVerification['final_proof'] = { stored: row.final_proof, recomputed: null, ok: null };
  if (row.exchange_tx_id !== null || row.final_proof !== null) {
    const recomputed = row.exchange_tx_id !== null ? finalProof(row.reasoning_hash, row.exchange_tx_id) : null;
    const ok = recomputed !== null && recomputed === row.final_proof;
    proof = { stored: row.final_proof, recomputed, ok };
    checks.push({
      check: 'final_proof',
      ok,
      detail: ok
        ? 'SHA-256(reasoning_hash || "||" || exchange_tx_id) equals the stored final_proof'
        : `recomputed ${recomputed ?? 'n/a'} ≠ stored ${row.final_proof ?? 'n/a'}`,
    });
  }
  return {
    trace_id: row.trace_id,
    valid: checks.every((c) => c.ok),
    reasoning_hash: { stored: row.reasoning_hash, recomputed: recomputedHash, ok: hashOk },
    final_proof: proof,
    checks,
  };
}

/** The personal data against the sealed commitment; null when there is nothing to check. */
function checkRegulatory(commitment: string | null, personal: TracePersonal): VerifyCheck | null {
  const check = 'regulatory_commitment';
  if (personal.problem) return { check, ok: false, detail: personal.problem };
  if (personal.erasedAt) {
    if (commitment === null) return null;
    return personal.erasureConfirmed
      ? { check, ok: true, detail: `the personal data were erased at ${personal.erasedAt.toISOString()}; the sealed commitment stands in for them` }
      : {
          check,
          ok: false,
          detail: "the trace is marked erased, but no erasure destroyed its agent's data key: the regulatory block was removed outside an erasure",
        };
  }
  if (personal.regulatory && personal.salt) {
    const ok = regulatoryCommitment(personal.salt, personal.regulatory) === commitment;
    return { check, ok, detail: ok ? 'the regulatory block matches its sealed commitment' : 'the regulatory block does not match its sealed commitment' };
  }
  // Without an erasure, a sealed commitment without its data is tampering.
  if (commitment !== null)
    return { check, ok: false, detail: 'the sealed trace commits to a regulatory block, but the block or its salt is missing from the store' };
  if (personal.regulatory !== null) return { check, ok: false, detail: 'a regulatory block is stored, but the sealed trace committed to none' };
  return null;
}
