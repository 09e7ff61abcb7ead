/**
 * The links of a documentation page that point inside the repository (a file, a heading of a page, or both),
 * read outside fenced and inline code, so that a test can check that each still leads somewhere: a section
 * that moves to another page changes its links' targets, and a broken one would otherwise go unseen.
 */

export interface Link {
  line: number;
  /** The path part, relative to the page (empty for a heading of the same page). */
  file: string;
  /** The heading anchor, without `#` (empty when the link names a file only). */
  anchor: string;
}

export function localLinks(markdown: string): Link[] {
  const out: Link[] = [];
  let fence = false;
  markdown.split('\n').forEach((text, i) => {
    if (/^(`{3,}|~{3,})/.test(text)) fence = !fence;
    if (fence) return;
    const prose = text.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const hash = target.indexOf('#');
      out.push({ line: i + 1, file: hash < 0 ? target : target.slice(0, hash), anchor: hash < 0 ? '' : target.slice(hash + 1) });
    }
  });
  return out;
}
