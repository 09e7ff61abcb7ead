/**
 * docs/design.md's drawing of the layers, generated from the rules of `.dependency-cruiser.cjs` (one `layer-NAME`
 * rule per layer: the folders it matches, what the layer holds and what it may import), so the page shows the
 * layers CI enforces.
 */
import { createRequire } from 'node:module';

interface LayerRule {
  name: string;
  comment: string;
  from: { path: string };
}

const config = createRequire(import.meta.url)('../.dependency-cruiser.cjs') as { forbidden: LayerRule[] };

/** `^src/(store|secrets)/` → `src/store/ src/secrets/`; `^(src/(cli|demo)|commands)/` → `src/cli/ src/demo/ commands/`. */
export function folders(pattern: string): string[] {
  const body = pattern.replace(/^\^/, '');
  const expand = (s: string): string[] => {
    const m = /^(.*?)\(([^()]*(?:\([^()]*\)[^()]*)*)\)(.*)$/.exec(s);
    if (!m) return [s];
    const [, pre, inner, post] = m as unknown as [string, string, string, string];
    const parts: string[] = [];
    let depth = 0;
    let cur = '';
    for (const ch of inner) {
      if (ch === '(') depth++;
      if (ch === ')') depth--;
      if (ch === '|' && depth === 0) {
        parts.push(cur);
        cur = '';
      } else cur += ch;
    }
    parts.push(cur);
    return parts.flatMap((p) => expand(`${pre}${p}${post}`));
  };
  return expand(body);
}

export interface Layer {
  name: string;
  folders: string[];
  what: string;
  imports: string[];
}

export function layers(): Layer[] {
  return config.forbidden
    .filter((r) => r.name.startsWith('layer-'))
    .map((r) => {
      const [what, imports = ''] = r.comment.split('. Imports from: ');
      const allowed = imports.replace(/ \(and npm packages\)\.$/, '');
      return {
        name: r.name.slice('layer-'.length),
        folders: folders(r.from.path),
        what: what ?? '',
        imports: allowed === 'nothing but itself' ? [] : allowed.split(', '),
      };
    });
}

/** The generated section: the stack, top layer first, each with the layers it may import, then what each holds. */
export function layersSection(): string {
  const all = layers();
  const width = Math.max(...all.map((l) => l.folders.join(' ').length));
  const stack = [...all]
    .reverse()
    .map((l) => `${l.name.padEnd(9)}${l.folders.join(' ').padEnd(width)}${l.imports.length ? `  → ${[...l.imports].reverse().join(', ')}` : ''}`.trimEnd());
  const rows = all.map((l) => `| ${l.name} | ${l.folders.map((f) => `\`${f}\``).join(', ')} | ${l.what} | ${l.imports.join(', ') || '—'} |`);
  return ['```text', ...stack, '```', '', '| layer | folders | holds | imports from |', '|---|---|---|---|', ...rows, ''].join('\n');
}
