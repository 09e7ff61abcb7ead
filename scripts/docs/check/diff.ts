/**
 * A unified diff of two short texts (a command's documented output and its real one), by longest common
 * subsequence: outputs are tens of lines, so the quadratic table costs nothing and keeps the code obvious.
 */

type Op = { kind: ' ' | '-' | '+'; text: string };

function edits(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: the length of the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: ' ', text: a[i++]! });
      j++;
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push({ kind: '-', text: a[i++]! });
    else ops.push({ kind: '+', text: b[j++]! });
  }
  return ops;
}

/**
 * The unified diff turning `expected` into `actual` with `context` lines around each change, headed by the two
 * labels; empty when they are equal.
 */
export function unifiedDiff(expected: readonly string[], actual: readonly string[], labels: { expected: string; actual: string }, context = 3): string {
  const ops = edits(expected, actual);
  if (ops.every((o) => o.kind === ' ')) return '';
  const out = [`--- ${labels.expected}`, `+++ ${labels.actual}`];
  let k = 0;
  while (k < ops.length) {
    if (ops[k]!.kind === ' ') {
      k++;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` lines after the last change near it.
    let from = Math.max(0, k - context);
    let to = k;
    for (;;) {
      while (to < ops.length && ops[to]!.kind !== ' ') to++;
      let next = to;
      while (next < ops.length && ops[next]!.kind === ' ') next++;
      if (next < ops.length && next - to <= 2 * context) to = next;
      else break;
    }
    to = Math.min(ops.length, to + context);
    let a = 1;
    let b = 1;
    for (let x = 0; x < from; x++) {
      if (ops[x]!.kind !== '+') a++;
      if (ops[x]!.kind !== '-') b++;
    }
    const hunk = ops.slice(from, to);
    const aLen = hunk.filter((o) => o.kind !== '+').length;
    const bLen = hunk.filter((o) => o.kind !== '-').length;
    out.push(`@@ -${aLen === 0 ? a - 1 : a},${aLen} +${bLen === 0 ? b - 1 : b},${bLen} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.text}`);
    k = to;
    from = to;
  }
  return out.join('\n');
}
