/**
 * Reading a stored trace back in the Reasoning_Trace_v1 layout, and verifying it: recompute
 * `reasoning_hash` from the sealed text (re-canonicalised, so a reformatted or edited text is caught), the
 * regulatory commitment from the personal data and its salt, `final_proof` from the hash and the
 * exchange_tx_id, and check the listing columns against the sealed facts.
 */
import { canonicalJson } from '../../crypto/jcs.js';
import { sha256Hex } from '../../crypto/hash.js';
import type { TraceRow } from '../store/traces.js';
import type { SealedTrace } from './document.js';
import { finalProof, regulatoryCommitment, type RegulatoryBlock } from './seal.js';

export function traceDocument(row: TraceRow): Record<string, unknown> {
  const sealed = JSON.parse(row.sealed) as SealedTrace;
  const commitment = sealed.regulatory?.commitment ?? null;
  return {
    ...sealed,
    status: row.status,
    regulatory: row.regulatory,
    integrity: {
      reasoning_hash: row.reasoning_hash,
      verification_status: row.verification_status,
      execution_status: row.execution_status,
      final_proof: row.final_proof,
      regulatory_commitment: commitment,
      exchange_tx_id: row.exchange_tx_id,
      divergence_reason: row.divergence_reason,
      execution_time: row.execution_time ? row.execution_time.toISOString() : null,
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

export function verifyTrace(row: TraceRow): TraceVerification {
  const checks: VerifyCheck[] = [];
  let sealed: SealedTrace | null = null;
  try {
    sealed = JSON.parse(row.sealed) as SealedTrace;
  } catch {
    checks.push({ check: 'sealed_text', ok: false, detail: 'the stored sealed text is not JSON' });
  }
  const recomputedHash = sha256Hex(row.sealed);
  const hashOk = recomputedHash === row.reasoning_hash;
  checks.push({ check: 'reasoning_hash', ok: hashOk, detail: hashOk ? 'SHA-256 of the sealed text equals the stored reasoning_hash' : `recomputed ${recomputedHash} ≠ stored ${row.reasoning_hash}` });
  if (sealed) {
    const canonical = canonicalJson(sealed) === row.sealed;
    checks.push({ check: 'canonical_form', ok: canonical, detail: canonical ? 'the sealed text is in RFC 8785 canonical form' : 'the sealed text is not canonical: it was reformatted or edited' });
    const facts: Array<[string, unknown, unknown]> = [
      ['trace_id', sealed.trace_id, row.trace_id], ['agent_id', sealed.agent.agent_id, row.agent_id],
      ['action', sealed.execution.action, row.action], ['asset', sealed.execution.asset, row.asset],
      ['quantity', sealed.execution.quantity, row.quantity], ['notional', sealed.execution.notional, row.notional],
      ['notional_currency', sealed.execution.notional_currency, row.notional_currency],
      ['client_order_id', sealed.execution.client_order_id, row.client_order_id],
      ['txn_time', sealed.bitemporal.txn_time, row.txn_time.toISOString()],
    ];
    const off = facts.filter(([, a, b]) => a !== b);
    checks.push({ check: 'listing_columns', ok: off.length === 0, detail: off.length === 0 ? 'listing columns agree with the sealed trace' : `differ from the sealed trace: ${off.map(([f, a, b]) => `${f} sealed ${String(a)} stored ${String(b)}`).join('; ')}` });
    const commitment = sealed.regulatory?.commitment ?? null;
    if (row.regulatory && row.regulatory_salt) {
      const again = regulatoryCommitment(row.regulatory_salt, row.regulatory as RegulatoryBlock);
      checks.push({ check: 'regulatory_commitment', ok: again === commitment, detail: again === commitment ? 'the regulatory block matches its sealed commitment' : 'the regulatory block does not match its sealed commitment' });
    } else if (commitment !== null) {
      // No erasure exists yet that could have removed it: a sealed commitment without its data is tampering.
      checks.push({ check: 'regulatory_commitment', ok: false, detail: 'the sealed trace commits to a regulatory block, but the block or its salt is missing from the store' });
    } else if (row.regulatory !== null) {
      checks.push({ check: 'regulatory_commitment', ok: false, detail: 'a regulatory block is stored, but the sealed trace committed to none' });
    }
  }
  let proof: TraceVerification['final_proof'] = { stored: row.final_proof, recomputed: null, ok: null };
  if (row.exchange_tx_id !== null || row.final_proof !== null) {
    const recomputed = row.exchange_tx_id !== null ? finalProof(row.reasoning_hash, row.exchange_tx_id) : null;
    const ok = recomputed !== null && recomputed === row.final_proof;
    proof = { stored: row.final_proof, recomputed, ok };
    checks.push({ check: 'final_proof', ok, detail: ok ? 'SHA-256(reasoning_hash || "||" || exchange_tx_id) equals the stored final_proof' : `recomputed ${recomputed ?? 'n/a'} ≠ stored ${row.final_proof ?? 'n/a'}` });
  }
  return {
    trace_id: row.trace_id,
    valid: checks.every((c) => c.ok),
    reasoning_hash: { stored: row.reasoning_hash, recomputed: recomputedHash, ok: hashOk },
    final_proof: proof,
    checks,
  };
}
