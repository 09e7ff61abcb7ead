/**
 * Examples of the transparency log's answers in the API document, computed with the log's own functions so
 * that they verify: a log of six leaves whose last two are the reasoning_hash and the final_proof of the
 * example trace of ./examples.ts, a head signed with an example key, and the proofs of that tree.
 */
import { createHash } from 'node:crypto';
import { createSigner, publicKeyFromSecret } from '../../core/crypto/ed25519.js';
import { appendLeaves } from '../../core/log/append.js';
import { hashFromHex, leafHash, toHex } from '../../core/log/hashing.js';
import { consistencyPath, inclusionPath, proofHashes } from '../../core/log/proofs.js';
import { nodeKey } from '../../core/log/subtrees.js';
import { keyIdOf, signTreeHead } from '../../core/log/tree-head.js';
import { traceExample } from './examples.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const { reasoning_hash: reasoningHash, final_proof: finalProof } = traceExample.integrity;
const data = [sha('example leaf 0'), sha('example leaf 1'), sha('example leaf 2'), sha('example leaf 3'), reasoningHash, finalProof];
const grown = appendLeaves(
  0,
  [],
  data.map((d) => leafHash(hashFromHex(d, 'leaf'))),
);
const nodes = new Map(grown.nodes.map((n) => [nodeKey(n), n.hash]));
const lookup = (id: { level: number; index: number }): Uint8Array => nodes.get(nodeKey(id)) as Uint8Array;
const exampleKey = new Uint8Array(createHash('sha256').update('tradeseal example log key').digest());

export const treeHeadExample = signTreeHead(
  { tree_size: grown.size, root_hash: toHex(grown.root), timestamp: Date.parse('2026-01-05T14:30:01.000Z') },
  createSigner(exampleKey),
  keyIdOf(publicKeyFromSecret(exampleKey)),
);

const leafProof = (index: number) => ({
  leaf_index: index,
  leaf_hash: toHex(leafHash(hashFromHex(data[index] as string, 'leaf'))),
  audit_path: proofHashes(inclusionPath(index, grown.size), lookup).map(toHex),
});

export const traceLogProofExample = {
  trace_id: traceExample.trace_id,
  tree_size: grown.size,
  ...leafProof(4),
  reasoning_hash: reasoningHash,
  final_proof: finalProof,
  final_proof_leaf: leafProof(5),
};

export const consistencyProofExample = { from: 4, to: grown.size, proof: proofHashes(consistencyPath(4, grown.size), lookup).map(toHex) };
