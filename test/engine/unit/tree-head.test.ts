/**
 * Signed tree heads and the offline check of a trace's place in the log (src/core/log/tree-head.ts,
 * trace-check.ts):
 *
 * - the signed bytes are RFC 6962 §3.5's TreeHeadSignature, checked against certificate-transparency-go's
 *   known-answer test (test/vectors/ct_tree_head_signature_input.json, with its source);
 * - key_id is RFC 6962 §3.2's LogID, SHA-256 of the DER SubjectPublicKeyInfo, cross-checked with node:crypto;
 * - a head, or a proof bundle, altered in any field is refused, naming the check that fails.
 */
import { createHash, createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import kat from '../../vectors/ct_tree_head_signature_input.json' with { type: 'json' };
import { createSigner, generateKeyPair, toBase64 } from '../../../src/core/crypto/ed25519.js';
import { appendLeaves } from '../../../src/core/log/append.js';
import { hashFromHex, leafHash, toHex } from '../../../src/core/log/hashing.js';
import { inclusionPath, proofHashes } from '../../../src/core/log/proofs.js';
import { nodeKey } from '../../../src/core/log/subtrees.js';
import { checkTraceInLog, type TraceLogProof } from '../../../src/core/log/trace-check.js';
import { keyIdOf, signTreeHead, treeHeadSignatureInput, verifyTreeHeadSignature, type SignedTreeHead } from '../../../src/core/log/tree-head.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('the signed bytes of a tree head', () => {
  it("are RFC 6962 §3.5 TreeHeadSignature: certificate-transparency-go's known answer", () => {
    const p = kat.signed_hex_parts;
    const input = treeHeadSignatureInput({
      tree_size: kat.tree_size,
      timestamp: kat.timestamp,
      root_hash: Buffer.from(kat.sha256_root_hash_ascii, 'ascii').toString('hex'),
    });
    expect(toHex(input)).toBe(p.version + p.signature_type + p.timestamp + p.tree_size + p.root_hash);
  });

  it('carry the full 64-bit range of sizes and times a JavaScript number holds exactly', () => {
    // 1767623400000 = 0x19B8E909A40; 2^53 − 1 = 0x1FFFFFFFFFFFFF.
    const input = treeHeadSignatureInput({ tree_size: Number.MAX_SAFE_INTEGER, timestamp: 1_767_623_400_000, root_hash: 'ff'.repeat(32) });
    expect(toHex(input.subarray(0, 18))).toBe('0001' + '0000019b8e909a40' + '001fffffffffffff');
    expect(() => treeHeadSignatureInput({ tree_size: -1, timestamp: 0, root_hash: 'ff'.repeat(32) })).toThrow(/tree_size/);
    expect(() => treeHeadSignatureInput({ tree_size: 1, timestamp: 0, root_hash: 'FF'.repeat(32) })).toThrow(/root_hash/);
  });
});

describe('key_id', () => {
  it('is SHA-256 of the DER SubjectPublicKeyInfo (RFC 6962 §3.2 LogID), as node:crypto encodes it', () => {
    const { publicKey } = generateKeyPair();
    const der = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') }, format: 'jwk' }).export({
      type: 'spki',
      format: 'der',
    });
    expect(keyIdOf(publicKey)).toBe(createHash('sha256').update(der).digest('hex'));
  });
});

describe('a signed head', () => {
  const key = generateKeyPair();
  const head = signTreeHead({ tree_size: 6, root_hash: sha('root'), timestamp: 1_767_623_400_000 }, createSigner(key.secretKey), keyIdOf(key.publicKey));

  it('verifies under its key, and not when any field is altered or under another key', () => {
    expect(verifyTreeHeadSignature(head, key.publicKey)).toEqual({ valid: true });
    const altered: SignedTreeHead[] = [
      { ...head, tree_size: 7 },
      { ...head, timestamp: head.timestamp + 1 },
      { ...head, root_hash: sha('another root') },
      { ...head, signature: toBase64(Uint8Array.from(Buffer.from(head.signature, 'base64'), (b, i) => (i === 0 ? b ^ 1 : b))) },
      { ...head, signature: 'not base64!' },
    ];
    for (const h of altered) expect(verifyTreeHeadSignature(h, key.publicKey).valid, JSON.stringify(h)).toBe(false);
    expect(verifyTreeHeadSignature(head, generateKeyPair().publicKey).valid).toBe(false);
  });
});

describe('checkTraceInLog: the offline check of `engine log verify`', () => {
  const key = generateKeyPair();
  const reasoning = sha('reasoning');
  const final = sha('final');
  const data = [sha('a'), reasoning, sha('b'), sha('c'), final];
  const grown = appendLeaves(
    0,
    [],
    data.map((d) => leafHash(hashFromHex(d, 'd'))),
  );
  const nodes = new Map(grown.nodes.map((n) => [nodeKey(n), n.hash]));
  const proofOf = (i: number) => ({
    leaf_index: i,
    leaf_hash: toHex(leafHash(hashFromHex(data[i] as string, 'd'))),
    audit_path: proofHashes(inclusionPath(i, 5), (id) => nodes.get(nodeKey(id)) as Uint8Array).map(toHex),
  });
  const head = signTreeHead({ tree_size: 5, root_hash: toHex(grown.root), timestamp: 1_767_623_400_000 }, createSigner(key.secretKey), keyIdOf(key.publicKey));
  const proof: TraceLogProof = {
    trace_id: '0b1e6a36-7d0e-4c53-9b46-1f1a3f6b2c11',
    tree_size: 5,
    ...proofOf(1),
    reasoning_hash: reasoning,
    final_proof: final,
    final_proof_leaf: proofOf(4),
  };
  const trace = { reasoning_hash: reasoning, final_proof: final };
  const failing = (input: Partial<Parameters<typeof checkTraceInLog>[0]>) => {
    const result = checkTraceInLog({ head, proof, trace, publicKey: key.publicKey, ...input });
    return result.checks.filter((c) => c.status === 'fail').map((c) => c.check);
  };

  it('passes every check for an honest bundle', () => {
    const result = checkTraceInLog({ head, proof, trace, publicKey: key.publicKey });
    expect(result.valid).toBe(true);
    expect(result.checks.every((c) => c.status === 'pass')).toBe(true);
  });

  it('names the failing check of each tampered bundle', () => {
    const flip = (hex: string) => (hex[0] === '0' ? '1' : '0') + hex.slice(1);
    expect(failing({ publicKey: generateKeyPair().publicKey })).toEqual(['key_id', 'signature']);
    expect(failing({ head: { ...head, root_hash: sha('forged') } })).toEqual(['signature', 'inclusion', 'final_proof_inclusion']);
    expect(failing({ proof: { ...proof, tree_size: 4 } })).toEqual(['tree_size']);
    expect(failing({ trace: { ...trace, reasoning_hash: sha('rewritten') } })).toEqual(['reasoning_hash']);
    expect(failing({ proof: { ...proof, audit_path: [flip(proof.audit_path[0]!), ...proof.audit_path.slice(1)] } })).toEqual(['inclusion']);
    expect(failing({ proof: { ...proof, audit_path: proof.audit_path.slice(1) } })).toEqual(['inclusion']);
    expect(failing({ proof: { ...proof, leaf_index: 2 } })).toEqual(['inclusion']);
    expect(failing({ proof: { ...proof, leaf_hash: flip(proof.leaf_hash) } })).toEqual(['inclusion']);
    expect(failing({ proof: { ...proof, reasoning_hash: sha('other'), leaf_hash: toHex(leafHash(hashFromHex(sha('other'), 'x'))) } })).toEqual([
      'reasoning_hash',
      'inclusion',
    ]);
    expect(failing({ trace: { ...trace, final_proof: sha('rebound') } })).toEqual(['final_proof']);
    expect(failing({ trace: { ...trace, final_proof: null } })).toEqual(['final_proof']);
    expect(failing({ proof: { ...proof, final_proof_leaf: { ...proofOf(4), leaf_index: 3 } } })).toEqual(['final_proof_inclusion']);
  });

  it('skips the final_proof checks while the trace is unbound, or bound but not yet in the tree', () => {
    const unbound = checkTraceInLog({
      head,
      proof: { ...proof, final_proof: null, final_proof_leaf: null },
      trace: { ...trace, final_proof: null },
      publicKey: key.publicKey,
    });
    expect(unbound.valid).toBe(true);
    expect(unbound.checks.filter((c) => c.status === 'skipped').map((c) => c.detail)).toEqual(['the trace is not bound', 'the trace is not bound']);
    const pending = checkTraceInLog({ head, proof: { ...proof, final_proof: null, final_proof_leaf: null }, trace, publicKey: key.publicKey });
    expect(pending.valid).toBe(true);
    expect(pending.checks.find((c) => c.check === 'final_proof')?.detail).toMatch(/not yet in this tree/);
  });
});
