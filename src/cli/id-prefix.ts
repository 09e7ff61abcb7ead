/**
 * Short ids as input: listings show an id's first 8 characters, so a command that takes a trace, agent or token
 * id also takes a prefix of it (at least MIN_ID_PREFIX hex digits, hyphens where the UUID has them), as git
 * takes a short commit hash. A prefix names one id or none: two or more matches are refused, listing them, never
 * guessed between. Only the local store resolves prefixes; a remote engine's API takes whole ids.
 */
import type { Sql } from 'postgres';
import { notFound, validationError } from '../core/errors.js';

export const MIN_ID_PREFIX = 4;

/** What a prefix may name: the table and its uuid column, and the argument's name in messages. */
export const ID_KINDS = {
  trace: { table: 'traces', column: 'trace_id', argument: 'TRACE_ID', noun: 'trace' },
  agent: { table: 'agents', column: 'agent_id', argument: 'AGENT_ID', noun: 'agent' },
  token: { table: 'engine_tokens', column: 'token_id', argument: 'TOKEN_ID', noun: 'token' },
} as const;
export type IdKind = keyof typeof ID_KINDS;

/**
 * What the command takes where `kind`'s id goes, as the hint of a refused id: the refusal itself keeps the HTTP
 * API's code and words (the same input is refused alike by both), the hint adds what only the CLI accepts.
 */
export function idHint(kind: IdKind, remote: boolean): string {
  const { noun } = ID_KINDS[kind];
  return remote
    ? `give a whole ${noun} id (a UUID): a remote engine takes no prefixes`
    : `give a ${noun} id (a UUID) or a unique prefix of it of at least ${MIN_ID_PREFIX} hex digits, as \`tradeseal engine ${noun}s list\` shows them`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const asUuid = (hex32: string): string => `${hex32.slice(0, 8)}-${hex32.slice(8, 12)}-${hex32.slice(12, 16)}-${hex32.slice(16, 20)}-${hex32.slice(20)}`;

/**
 * The ids a prefix covers, as the inclusive range [low, high] of UUIDs (PostgreSQL orders uuid values by their
 * bytes, which is the order of their hex text); null when `input` is a whole UUID or not a prefix of one.
 */
export function prefixRange(input: string): { low: string; high: string } | null {
  if (UUID.test(input)) return null;
  const hex = input.replace(/-/g, '').toLowerCase();
  if (!/^[0-9a-f]*$/.test(hex) || hex.length < MIN_ID_PREFIX || hex.length >= 32) return null;
  // Hyphens only where a UUID has them: the prefix must read as the start of one.
  if (asUuid(hex.padEnd(32, '0')).slice(0, input.length) !== input.toLowerCase()) return null;
  return { low: asUuid(hex.padEnd(32, '0')), high: asUuid(hex.padEnd(32, 'f')) };
}

/**
 * The whole id `input` names: itself when it is not a prefix (the command's validation then judges it), the one
 * id of `kind` starting with it, or an error: `not_found` for none, `validation_failed` listing a few for several.
 */
export async function resolveIdPrefix(sql: Sql, kind: IdKind, input: string): Promise<string> {
  const range = prefixRange(input);
  if (!range) return input;
  const { table, column, argument, noun } = ID_KINDS[kind];
  const rows = await sql<Array<{ id: string }>>`
    select ${sql(column)}::text as id from ${sql(table)}
    where ${sql(column)} between ${range.low}::uuid and ${range.high}::uuid
    group by 1 order by 1 limit 5`;
  if (rows.length === 0)
    throw notFound(`no ${noun} id starts with ${input}`, `check the ${noun} id; the list commands (\`tradeseal engine … list\`) show the ids`);
  if (rows.length === 1) return (rows[0] as { id: string }).id;
  const shown = rows.map((r) => r.id).join(', ');
  throw validationError([
    { field: argument, message: `${input} is the start of ${rows.length === 5 ? '5 or more' : rows.length} ${noun} ids (${shown}): type more of it` },
  ]);
}
