/**
 * A documentation page's table of contents, generated from its headings so that it cannot drift from them:
 * every `##` and `###` heading outside fenced code blocks, as a nested list of links whose anchors follow
 * GitHub's rules (what GitHub's Markdown renderer gives each heading's `id`), written between
 * `<!-- toc:start -->` and `<!-- toc:end -->`.
 */

export interface Heading {
  level: number;
  text: string;
  anchor: string;
}

/** The text a heading shows: inline code, emphasis and links reduced to their words. */
export function headingText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__)(.*?)\1/g, '$2')
    .replace(/<[^>]+>/g, '')
    .trim();
}

/**
 * GitHub's anchor of a heading: lower case, every character that is not a letter, a digit, a space, a hyphen
 * or an underscore dropped, each space a hyphen (so `a: b` is `a-b` and `--workers` keeps its hyphens).
 */
export function githubSlug(text: string): string {
  return headingText(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The headings of a page in order, each with its anchor; a repeated anchor gets `-1`, `-2`, … as on GitHub. */
export function headings(markdown: string): Heading[] {
  const seen = new Map<string, number>();
  const out: Heading[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const f = /^(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === null) fence = f[1]!;
      else if (line.startsWith(fence)) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const h = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = githubSlug(h[2]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.push({ level: h[1]!.length, text: headingText(h[2]!), anchor: n === 0 ? base : `${base}-${n}` });
  }
  return out;
}

/** The table of contents of a page: its `##` headings, each with its `###` headings indented beneath. */
export function tableOfContents(markdown: string): string {
  return headings(markdown)
    .filter((h) => h.level === 2 || h.level === 3)
    .map((h) => `${h.level === 3 ? '  ' : ''}- [${h.text.replace(/([[\]])/g, '\\$1')}](#${h.anchor})`)
    .join('\n');
}
