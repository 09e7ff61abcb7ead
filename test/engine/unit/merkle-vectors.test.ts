/**
 * The transparency log's Merkle tree math (src/core/log/) against the published vectors of
 * transparency-dev/merkle (commit 417fb0c3, copied into test/vectors/transparency-dev-merkle/ with their
 * source; see test/vectors/README.md):
 *
 * - the RFC 6962 hasher vectors of rfc6962/rfc6962_test.go;
 * - the root of every tree of 0 to 8 leaves and every perfect subtree hash of testonly/constants.go, built
 *   both from scratch and leaf by leaf as the sequencer appends;
 * - the inclusion and consistency proofs of testdata/ (`happy-path.json`), generated from stored perfect
 *   subtrees exactly as the engine serves them, and every probe of testdata/ verified with its expected
 *   outcome: each tampered variant (`wantErr: true`) refused;
 * - the node tables of proof/proof_test.go: a proof reads the same stored nodes as the reference
 *   implementation does;
 * - and, beyond the vectors, a cross-check against an independent recursive implementation of RFC 9162 §2.1
 *   (written here from the RFC's definitions) for every leaf and every pair of sizes up to 130 leaves.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import tree from '../../vectors/transparency-dev-merkle/tree.json' with { type: 'json' };
import { appendLeaves, frontierOf, rootOf, type StoredNode } from '../../../src/core/log/append.js';
import { EMPTY_ROOT, leafHash, nodeHash, toHex } from '../../../src/core/log/hashing.js';
import { consistencyPath, inclusionPath, proofHashes } from '../../../src/core/log/proofs.js';
import { nodeKey, perfectSubtrees, subtreeHash, type LeafRange, type NodeId, type NodeLookup } from '../../../src/core/log/subtrees.js';
import { verifyConsistency, verifyInclusion } from '../../../src/core/log/verify.js';

const VECTORS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../vectors/transparency-dev-merkle/testdata');
const hex = (bytes: Uint8Array): string => toHex(bytes);
const fromHex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));
/** Go's encoding/json carries []byte as standard base64; null or "" is no bytes. */
const b64 = (text: string | null): Uint8Array => new Uint8Array(Buffer.from(text ?? '', 'base64'));

interface InclusionProbe {
  leafIdx: number;
  treeSize: number;
  root: string;
  leafHash: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}
interface ConsistencyProbe {
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}

function probes<T>(dir: string): Array<{ file: string; probe: T }> {
  const root = path.join(VECTORS, dir);
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file: `${dir}/${file}`, probe: JSON.parse(readFileSync(path.join(root, file), 'utf8')) as T }));
}

const leaves = tree.leaf_inputs.map(fromHex);
const leafHashes = leaves.map(leafHash);

/** An independent RFC 9162 §2.1.1 MTH over leaf data, recursive as the RFC writes it. */
function mth(data: Uint8Array[]): Uint8Array {
  if (data.length === 0) return new Uint8Array(createHash('sha256').digest());
  if (data.length === 1)
    return new Uint8Array(
      createHash('sha256')
        .update(Uint8Array.of(0))
        .update(data[0] as Uint8Array)
        .digest(),
    );
  let k = 1;
  while (k * 2 < data.length) k *= 2;
  return new Uint8Array(
    createHash('sha256')
      .update(Uint8Array.of(1))
      .update(mth(data.slice(0, k)))
      .update(mth(data.slice(k)))
      .digest(),
  );
}

/** The RFC's recursive definitions over D[0:n] of one fixed list, with MTH of each range computed once. */
function reference(data: Uint8Array[]) {
  const memo = new Map<string, Uint8Array>();
  const hash = (start: number, n: number): Uint8Array => {
    const key = `${start}:${n}`;
    let h = memo.get(key);
    if (!h) memo.set(key, (h = mth(data.slice(start, start + n))));
    return h;
  };
  const split = (n: number): number => {
    let k = 1;
    while (k * 2 < n) k *= 2;
    return k;
  };
  /** RFC 9162 §2.1.3.1 PATH(m, D[start:start+n]). */
  const path = (m: number, start: number, n: number): Uint8Array[] => {
    if (n <= 1) return [];
    const k = split(n);
    return m < k ? [...path(m, start, k), hash(start + k, n - k)] : [...path(m - k, start + k, n - k), hash(start, k)];
  };
  /** RFC 9162 §2.1.4.1 SUBPROOF(m, D[start:start+n], b). */
  const subproof = (m: number, start: number, n: number, whole: boolean): Uint8Array[] => {
    if (m === n) return whole ? [] : [hash(start, n)];
    const k = split(n);
    return m <= k ? [...subproof(m, start, k, whole), hash(start + k, n - k)] : [...subproof(m - k, start + k, n - k, false), hash(start, k)];
  };
  return { root: (n: number) => hash(0, n), path: (m: number, n: number) => path(m, 0, n), proof: (m: number, n: number) => subproof(m, 0, n, true) };
}

/** A store of perfect subtrees, filled the way the sequencer fills it: leaf by leaf, in batches. */
function storeOf(hashes: Uint8Array[], batch = 3): { lookup: NodeLookup; nodes: Map<string, Uint8Array>; roots: Uint8Array[] } {
  const nodes = new Map<string, Uint8Array>();
  let frontier: StoredNode[] = [];
  let size = 0;
  const roots = [rootOf(frontier)];
  for (let i = 0; i < hashes.length; i += batch) {
    const appended = appendLeaves(size, frontier, hashes.slice(i, i + batch));
    for (const node of appended.nodes) nodes.set(nodeKey(node), node.hash);
    frontier = appended.frontier;
    size = appended.size;
    // The root after each leaf of the batch, from the stored nodes alone.
    for (let s = roots.length; s <= size; s++) roots.push(subtreeHash({ start: 0, end: s }, (id) => nodes.get(nodeKey(id)) as Uint8Array));
    expect(hex(appended.root)).toBe(hex(roots[size] as Uint8Array));
  }
  const lookup: NodeLookup = (id) => {
    const hash = nodes.get(nodeKey(id));
    if (!hash) throw new Error(`node ${nodeKey(id)} is not stored`);
    return hash;
  };
  return { lookup, nodes, roots };
}

describe('RFC 6962 hashing (rfc6962/rfc6962_test.go)', () => {
  for (const v of tree.hasher) {
    it(`${v.desc}: ${v.want.slice(0, 16)}…`, () => {
      const utf8 = (s: string | undefined): Uint8Array => new TextEncoder().encode(s ?? '');
      const got = v.kind === 'empty_root' ? EMPTY_ROOT : v.kind === 'leaf' ? leafHash(utf8(v.data_utf8)) : nodeHash(utf8(v.left_utf8), utf8(v.right_utf8));
      expect(hex(got)).toBe(v.want);
    });
  }

  it('keeps a leaf from passing for a node: H(0x00 ‖ l ‖ r) differs from H(0x01 ‖ l ‖ r), and order matters', () => {
    const [l, r] = [leafHash(fromHex('00')), leafHash(fromHex('01'))];
    const joined = new Uint8Array([...l, ...r]);
    expect(hex(nodeHash(l, r))).not.toBe(hex(leafHash(joined)));
    expect(hex(nodeHash(l, r))).not.toBe(hex(nodeHash(r, l)));
  });
});

describe('tree hashes (testonly/constants.go)', () => {
  it('gives the root of every tree of 0 to 8 leaves, from scratch and as the sequencer appends in batches of 1, 3 and 8', () => {
    tree.root_hashes.forEach((root, size) => expect(hex(mth(leaves.slice(0, size))), `size ${size}`).toBe(root));
    for (const batch of [1, 3, 8]) {
      const { roots } = storeOf(leafHashes, batch);
      expect(roots.map(hex)).toEqual(tree.root_hashes);
    }
  });

  it('stores exactly the perfect subtrees of NodeHashes(), and their hashes', () => {
    const { nodes } = storeOf(leafHashes);
    const want = new Map(tree.node_hashes.flatMap((level, l) => level.map((h, i) => [`${l}:${i}`, h] as const)));
    expect(new Map([...nodes].map(([k, v]) => [k, hex(v)]))).toEqual(want);
  });

  it('keeps the compact range of each size: CompactTrees()', () => {
    expect(frontierOf(7)).toEqual([
      { level: 2, index: 0 },
      { level: 1, index: 2 },
      { level: 0, index: 6 },
    ]);
    expect(frontierOf(8)).toEqual([{ level: 3, index: 0 }]);
    expect(frontierOf(0)).toEqual([]);
  });

  it('refuses to grow from a frontier that is not the compact range of the size given', () => {
    const { lookup } = storeOf(leafHashes);
    const wrong = frontierOf(6).map((id) => ({ ...id, hash: lookup(id) }));
    expect(() => appendLeaves(7, wrong, [leafHashes[0] as Uint8Array])).toThrow(/compact range/);
  });
});

describe('inclusion proofs (testdata/inclusion)', () => {
  const all = probes<InclusionProbe>('inclusion');
  const { lookup } = storeOf(leafHashes);

  it('generates each happy-path proof, element for element, from stored perfect subtrees', () => {
    const happy = all.filter(({ probe }) => probe.desc === 'happy path');
    expect(happy.length).toBe(5);
    for (const { file, probe } of happy) {
      expect(b64(probe.leafHash), file).toEqual(leafHashes[probe.leafIdx]);
      expect(hex(b64(probe.root)), file).toBe(tree.root_hashes[probe.treeSize]);
      const proof = proofHashes(inclusionPath(probe.leafIdx, probe.treeSize), lookup);
      expect(proof.map(hex), file).toEqual((probe.proof ?? []).map((p) => hex(b64(p))));
    }
  });

  it(`verifies each of the ${all.length} probes as the vectors expect: every tampered variant refused`, () => {
    const outcomes = all.map(({ file, probe }) => {
      const verdict = verifyInclusion(probe.leafIdx, probe.treeSize, b64(probe.leafHash), (probe.proof ?? []).map(b64), b64(probe.root));
      return { file, refused: !verdict.valid, wantErr: probe.wantErr };
    });
    expect(outcomes.filter((o) => o.refused !== o.wantErr)).toEqual([]);
    expect(outcomes.filter((o) => o.wantErr).length).toBeGreaterThan(70);
  });
});

describe('consistency proofs (testdata/consistency)', () => {
  const all = probes<ConsistencyProbe>('consistency');
  const { lookup } = storeOf(leafHashes);

  it('generates each happy-path proof, element for element, from stored perfect subtrees', () => {
    const happy = all.filter(({ probe }) => probe.desc === 'happy path');
    expect(happy.length).toBe(5);
    for (const { file, probe } of happy) {
      expect([hex(b64(probe.root1)), hex(b64(probe.root2))], file).toEqual([tree.root_hashes[probe.size1], tree.root_hashes[probe.size2]]);
      const proof = proofHashes(consistencyPath(probe.size1, probe.size2), lookup);
      expect(proof.map(hex), file).toEqual((probe.proof ?? []).map((p) => hex(b64(p))));
    }
  });

  it(`verifies each of the ${all.length} probes as the vectors expect: every tampered variant refused`, () => {
    const outcomes = all.map(({ file, probe }) => {
      const verdict = verifyConsistency(probe.size1, probe.size2, (probe.proof ?? []).map(b64), b64(probe.root1), b64(probe.root2));
      return { file, refused: !verdict.valid, wantErr: probe.wantErr };
    });
    expect(outcomes.filter((o) => o.refused !== o.wantErr)).toEqual([]);
    expect(outcomes.filter((o) => o.wantErr).length).toBeGreaterThan(80);
  });
});

/**
 * proof/proof_test.go lists a proof's nodes as the reference implementation fetches them: each element's
 * perfect subtrees from the lowest up (right to left), and marks as `rehash` [begin, end) the ids hashed
 * together into one element. Ours are each element's subtrees left to right, hence the reversal; `spans` are
 * the positions of our elements made of several subtrees.
 */
function asReferenceNodes(ranges: LeafRange[]): { ids: number[][]; spans: number[][] } {
  const ids: number[][] = [];
  const spans: number[][] = [];
  for (const range of ranges) {
    const parts: NodeId[] = perfectSubtrees(range.start, range.end).reverse();
    if (parts.length > 1) spans.push([ids.length, ids.length + parts.length]);
    ids.push(...parts.map((p) => [p.level, p.index]));
  }
  return { ids, spans };
}

describe('the stored nodes each proof reads (proof/proof_test.go)', () => {
  it('reads, for each inclusion proof of the table, the nodes the reference implementation reads', () => {
    for (const c of tree.inclusion_nodes) {
      if ('error' in c) {
        expect(() => inclusionPath(c.index, c.size), `${c.size}:${c.index}`).toThrow();
        continue;
      }
      const ours = asReferenceNodes(inclusionPath(c.index, c.size));
      expect(ours.ids, `${c.size}:${c.index}`).toEqual(c.ids);
      for (const span of ours.spans) expect(c.rehash, `${c.size}:${c.index}`).toEqual(span);
    }
  });

  it('reads, for each consistency proof of the table, the nodes the reference implementation reads', () => {
    for (const c of tree.consistency_nodes) {
      if ('error' in c) {
        expect(() => consistencyPath(c.size1, c.size2), `${c.size1}:${c.size2}`).toThrow();
        continue;
      }
      const ours = asReferenceNodes(consistencyPath(c.size1, c.size2));
      expect(ours.ids, `${c.size1}:${c.size2}`).toEqual(c.ids);
      for (const span of ours.spans) expect(c.rehash, `${c.size1}:${c.size2}`).toEqual(span);
    }
  });
});

describe('beyond the vectors: against a recursive RFC 9162 §2.1 implementation', () => {
  const N = 130;
  const data = Array.from({ length: N }, (_, i) => Uint8Array.of(i));
  const { lookup } = storeOf(data.map(leafHash), 7);
  const ref = reference(data);
  const roots = Array.from({ length: N + 1 }, (_, n) => ref.root(n));

  it(`generates and verifies every inclusion proof of every tree up to ${N} leaves`, () => {
    const wrong: string[] = [];
    for (let n = 1; n <= N; n++) {
      for (let m = 0; m < n; m++) {
        const proof = proofHashes(inclusionPath(m, n), lookup);
        if (proof.map(hex).join() !== ref.path(m, n).map(hex).join()) wrong.push(`PATH(${m}, D[${n}])`);
        if (!verifyInclusion(m, n, leafHash(data[m] as Uint8Array), proof, roots[n] as Uint8Array).valid) wrong.push(`verify ${m} in ${n}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it(`generates and verifies every consistency proof between trees up to ${N} leaves, and refuses it for any other pair of roots`, () => {
    const wrong: string[] = [];
    for (let n = 1; n <= N; n++) {
      for (let m = 1; m <= n; m++) {
        const proof = proofHashes(consistencyPath(m, n), lookup);
        if (proof.map(hex).join() !== ref.proof(m, n).map(hex).join()) wrong.push(`PROOF(${m}, D[${n}])`);
        if (!verifyConsistency(m, n, proof, roots[m] as Uint8Array, roots[n] as Uint8Array).valid) wrong.push(`verify ${m} → ${n}`);
        if (m < n && verifyConsistency(m, n, proof, roots[m - 1] as Uint8Array, roots[n] as Uint8Array).valid)
          wrong.push(`accepted a wrong first root ${m} → ${n}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('reads O(log n) stored nodes per proof: at most 2·log2(n) + 2 for a tree of 2^40 − 1 leaves', () => {
    const n = 2 ** 40 - 1;
    for (const m of [0, 1, 2 ** 39, n - 2, n - 1])
      expect(new Set(inclusionPath(m, n).flatMap((r) => perfectSubtrees(r.start, r.end).map(nodeKey))).size).toBeLessThanOrEqual(82);
    for (const m of [1, 3, 2 ** 39 + 5, n - 1])
      expect(new Set(consistencyPath(m, n).flatMap((r) => perfectSubtrees(r.start, r.end).map(nodeKey))).size).toBeLessThanOrEqual(82);
  });
});
