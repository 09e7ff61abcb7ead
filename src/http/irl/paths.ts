/**
 * The IRL Engine's paths (`/irl/...`) and the engine route that serves each.
 *
 * The edge does not register routes of its own: Fastify's `rewriteUrl` hands an `/irl` request to the
 * `/engine` route before routing, so each operation keeps one handler and one schema, and the API document
 * keeps one entry per operation. The request's `originalUrl` still says `/irl/...`, which is how the hooks
 * of ./index.ts know to translate it. Only the paths the IRL clients call are mapped; any other `/irl` path
 * is a 404 like any unknown path.
 */

const SEGMENT = '([^/?]+)';

/** `/irl` path (anchored, trailing slash allowed) → the engine path, `$1` being the path parameter. */
const MAP: ReadonlyArray<[RegExp, string]> = [
  [/^\/irl\/(authorize|bind-execution|pending|orphans|shadow-violations|traces|health)\/?$/, '/engine/$1'],
  [new RegExp(`^/irl/trace/${SEGMENT}/?$`), '/engine/trace/$1'],
  [/^\/irl\/agents\/?$/, '/engine/admin/agents'],
  [new RegExp(`^/irl/agents/${SEGMENT}/?$`), '/engine/admin/agents/$1'],
  [new RegExp(`^/irl/agents/${SEGMENT}/status/?$`), '/engine/admin/agents/$1/status'],
  [/^\/irl\/admin\/(shadow-mode|audit-log|tokens)\/?$/, '/engine/admin/$1'],
  [new RegExp(`^/irl/admin/tokens/${SEGMENT}/?$`), '/engine/admin/tokens/$1'],
  [new RegExp(`^/irl/admin/gdpr-erase/${SEGMENT}/?$`), '/engine/admin/gdpr-erase/$1'],
];

/** The URL the router sees: an IRL path becomes its engine path (query kept); anything else is unchanged. */
export function engineUrlOf(url: string): string {
  if (!url.startsWith('/irl/')) return url;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  for (const [pattern, target] of MAP) {
    if (pattern.test(path)) return path.replace(pattern, target) + (q < 0 ? '' : url.slice(q));
  }
  return url;
}

/** Whether a request came in on an IRL path (its URL before any rewrite). */
export const isIrlUrl = (originalUrl: string): boolean => originalUrl === '/irl' || originalUrl.startsWith('/irl/') || originalUrl.startsWith('/irl?');
