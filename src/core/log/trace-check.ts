/**
 * The offline check of a trace's place in the log, as `tradeseal engine log verify` runs it on what the
 * engine answered: a signed tree head, the trace's inclusion proofs, the trace's own hashes and a public
 * key the verifier trusts. Pure: it trusts none of the answers, only the key.
 *
 * Each check is named, so a failure says which one failed:
 * - `key_id`: the head names the given key (RFC 6962 §3.2 LogID);
 * - `signature`: the head's Ed25519 signature verifies under it (./tree-head.ts);
 * - `tree_size`: the proofs are for the head's tree;
 * - `reasoning_hash`: the logged leaf is the trace's reasoning_hash (what the trace says now is what was logged);
 * - `inclusion`: its leaf hash, recomputed as SHA-256(0x00 ‖ the 32 bytes), and the audit path lead to the
 *   head's root (RFC 9162 §2.1.3.2);
 * - `final_proof`, `final_proof_inclusion`: the same for the final_proof leaf of a bound trace; skipped while
 *   the trace is unbound, or bound after the head was signed.
 */
import { equalBytes, hashFromHex, leafHash, toHex } from './hashing.js';
import { keyIdOf, verifyTreeHeadSignature, type SignedTreeHead } from './tree-head.js';
import { verifyInclusion, type Verdict } from './verify.js';

export interface LeafProof {
  leaf_index: number;
  leaf_hash: string;
  audit_path: string[];
}

/** `GET /engine/log/proof/{trace_id}`. */
export interface TraceLogProof extends LeafProof {
  trace_id: string;
  tree_size: number;
  /** The reasoning_hash as logged: the leaf's 32 bytes, hex. */
  reasoning_hash: string;
  /** The final_proof as logged, when its leaf is in the tree of tree_size; else null. */
  final_proof: string | null;
  final_proof_leaf: LeafProof | null;
}

export type CheckName = 'key_id' | 'signature' | 'tree_size' | 'reasoning_hash' | 'inclusion' | 'final_proof' | 'final_proof_inclusion';

/** One named check of an offline verification, and what it found. */
export interface NamedCheck<Name extends string> {
  check: Name;
  status: 'pass' | 'fail' | 'skipped';
  detail: string;
}

export type LogCheck = NamedCheck<CheckName>;

export interface TraceLogCheck {
  valid: boolean;
  trace_id: string;
  tree_size: number;
  root_hash: string;
  key_id: string;
  checks: LogCheck[];
}

/** What the trace itself says (its stored or served document), compared with what was logged. */
export interface TraceHashes {
  reasoning_hash: string;
  final_proof: string | null;
}

const pass = (check: CheckName, detail: string): LogCheck => ({ check, status: 'pass', detail });
const failed = (check: CheckName, detail: string): LogCheck => ({ check, status: 'fail', detail });
const skipped = (check: CheckName, detail: string): LogCheck => ({ check, status: 'skipped', detail });

function inclusionCheck(check: CheckName, data: string, proof: LeafProof, head: SignedTreeHead): LogCheck {
  let verdict: Verdict;
  try {
    const leaf = leafHash(hashFromHex(data, 'leaf data'));
    if (proof.leaf_hash !== toHex(leaf)) return failed(check, `the leaf hash served (${proof.leaf_hash}) is not SHA-256(0x00 ‖ ${data})`);
    verdict = verifyInclusion(
      proof.leaf_index,
      head.tree_size,
      leaf,
      proof.audit_path.map((h, i) => hashFromHex(h, `audit_path[${i}]`)),
      hashFromHex(head.root_hash, 'root_hash'),
    );
  } catch (error) {
    verdict = { valid: false, reason: (error as Error).message };
  }
  return verdict.valid
    ? pass(check, `leaf ${proof.leaf_index} is in the tree of ${head.tree_size} leaves (audit path of ${proof.audit_path.length})`)
    : failed(check, `leaf ${proof.leaf_index}: ${verdict.reason}`);
}

function sameHash(check: CheckName, what: string, trace: string, logged: string): LogCheck {
  let same = false;
  try {
    same = equalBytes(hashFromHex(trace, what), hashFromHex(logged, what));
  } catch {
    // A malformed value is a mismatch.
  }
  return same ? pass(check, `the trace's ${what} is the logged one`) : failed(check, `the trace's ${what} ${trace} is not the logged ${logged}`);
}

/** Runs every check; `valid` when none fails. */
export function checkTraceInLog(input: { head: SignedTreeHead; proof: TraceLogProof; trace: TraceHashes; publicKey: Uint8Array }): TraceLogCheck {
  const { head, proof, trace, publicKey } = input;
  const checks: LogCheck[] = [];
  const keyId = keyIdOf(publicKey);
  checks.push(
    head.key_id === keyId
      ? pass('key_id', `the head is signed by key ${keyId}`)
      : failed('key_id', `the head names key ${head.key_id}; the public key given is ${keyId}`),
  );
  const signature = verifyTreeHeadSignature(head, publicKey);
  checks.push(
    signature.valid
      ? pass('signature', `Ed25519 signature over the tree head of ${head.tree_size} leaves at ${new Date(head.timestamp).toISOString()}`)
      : failed('signature', signature.reason),
  );
  checks.push(
    proof.tree_size === head.tree_size
      ? pass('tree_size', `proofs for the tree of ${head.tree_size} leaves`)
      : failed('tree_size', `the proofs are for a tree of ${proof.tree_size} leaves, the head for ${head.tree_size}`),
  );
  checks.push(sameHash('reasoning_hash', 'reasoning_hash', trace.reasoning_hash, proof.reasoning_hash));
  checks.push(inclusionCheck('inclusion', proof.reasoning_hash, proof, head));
  if (proof.final_proof_leaf && proof.final_proof) {
    checks.push(
      trace.final_proof === null
        ? failed('final_proof', `the log holds final_proof ${proof.final_proof} for a trace that is not bound`)
        : sameHash('final_proof', 'final_proof', trace.final_proof, proof.final_proof),
    );
    checks.push(inclusionCheck('final_proof_inclusion', proof.final_proof, proof.final_proof_leaf, head));
  } else {
    const why =
      trace.final_proof === null
        ? 'the trace is not bound'
        : 'the trace is bound, but its final_proof is not yet in this tree (the sequencer adds it within a second)';
    checks.push(skipped('final_proof', why), skipped('final_proof_inclusion', why));
  }
  return {
    valid: checks.every((c) => c.status !== 'fail'),
    trace_id: proof.trace_id,
    tree_size: head.tree_size,
    root_hash: head.root_hash,
    key_id: head.key_id,
    checks,
  };
}
