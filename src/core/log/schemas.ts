/**
 * JSON Schemas of the transparency log's routes (`/engine/log/...`): the query strings they accept (the CLI
 * checks its flags against the same ones) and the heads and proofs they answer.
 */
import { MAX_TREE_SIZE } from './subtrees.js';
import { hex64, nullable, uuid } from '../schemas.js';

const treeSize = { type: 'integer', minimum: 0, maximum: MAX_TREE_SIZE } as const;
const positiveTreeSize = { type: 'integer', minimum: 1, maximum: MAX_TREE_SIZE } as const;

export const headQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { tree_size: { ...treeSize, description: 'A past size of the log (default: the newest head)' } },
} as const;

export const proofQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { tree_size: { ...treeSize, description: "Prove inclusion in the tree of this many leaves (default: the newest head's)" } },
} as const;

export const consistencyQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['from'],
  properties: {
    from: { ...positiveTreeSize, description: 'The size of the older tree (at least 1: nothing is proved about the empty tree)' },
    to: { ...positiveTreeSize, description: "The size of the newer tree (default: the newest head's)" },
  },
} as const;

const hashes = { type: 'array', items: hex64 } as const;

export const signedTreeHeadSchema = {
  type: 'object',
  required: ['tree_size', 'root_hash', 'timestamp', 'signature', 'key_id'],
  properties: {
    tree_size: { ...treeSize, description: 'Leaves in the tree' },
    root_hash: { ...hex64, description: 'RFC 9162 Merkle tree hash of the first tree_size leaves' },
    timestamp: { type: 'integer', minimum: 0, description: 'When the log signed this tree, Unix ms' },
    signature: {
      type: 'string',
      pattern: '^[A-Za-z0-9+/]{86}==$',
      description:
        'Base64 Ed25519 signature over the RFC 6962 §3.5 TreeHeadSignature: 0x00 ‖ 0x01 ‖ timestamp (uint64 BE) ‖ tree_size (uint64 BE) ‖ root_hash (32 bytes)',
    },
    key_id: { ...hex64, description: "SHA-256 of the DER SubjectPublicKeyInfo of the log's public key (RFC 6962 §3.2 LogID)" },
  },
} as const;

const leafProofProperties = {
  leaf_index: { type: 'integer', minimum: 0 },
  leaf_hash: { ...hex64, description: 'SHA-256(0x00 ‖ the 32 bytes of the logged hash)' },
  audit_path: { ...hashes, description: "RFC 9162 §2.1.3.1 inclusion proof, from the leaf's sibling up" },
} as const;

export const leafProofSchema = { type: 'object', required: ['leaf_index', 'leaf_hash', 'audit_path'], properties: leafProofProperties } as const;

export const traceLogProofSchema = {
  type: 'object',
  required: ['trace_id', 'tree_size', 'leaf_index', 'leaf_hash', 'audit_path', 'reasoning_hash', 'final_proof', 'final_proof_leaf'],
  properties: {
    trace_id: uuid,
    tree_size: { ...treeSize, description: 'The tree the proofs are for' },
    ...leafProofProperties,
    reasoning_hash: { ...hex64, description: "The trace's reasoning_hash as logged: the data of leaf leaf_index" },
    final_proof: { ...nullable(hex64), description: "The trace's final_proof as logged; null while it is not bound or not yet in this tree" },
    final_proof_leaf: { ...nullable(leafProofSchema), description: 'The inclusion proof of the final_proof leaf, when it is in this tree' },
  },
} as const;

export const consistencyProofSchema = {
  type: 'object',
  required: ['from', 'to', 'proof'],
  properties: {
    from: positiveTreeSize,
    to: positiveTreeSize,
    proof: { ...hashes, description: 'RFC 9162 §2.1.4.1 consistency proof' },
  },
} as const;
