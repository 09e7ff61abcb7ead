/** The IRL Engine's `error` for every tradeseal code (src/http/irl/error-codes.ts), and its README table. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../../src/core/errors.js';
import { IRL_ERROR_CODES, irlErrorCode, irlErrorCodesTable } from '../../../src/http/irl/error-codes.js';

describe('IRL error codes', () => {
  it('maps every code of ERROR_CODES, and nothing else, to an upper-case IRL code', () => {
    expect(Object.keys(IRL_ERROR_CODES).sort()).toEqual(Object.keys(ERROR_CODES).sort());
    for (const irl of Object.values(IRL_ERROR_CODES)) expect(irl).toMatch(/^[A-Z][A-Z0-9_]*$/);
  });

  it.each([
    ['notional_cap_exceeded', null, 'NOTIONAL_EXCEEDS_LIMIT'],
    ['heartbeat_replayed', '/engine/authorize', 'HEARTBEAT_STALE_SEQUENCE'],
    ['heartbeat_expired', '/engine/authorize', 'HEARTBEAT_DRIFT_EXCEEDED'],
    ['client_order_id_conflict', '/engine/authorize', 'DUPLICATE_INTENT'],
    ['precondition_failed', '/engine/admin/gdpr-erase/:agent_id', 'ENCRYPTION_ERROR'],
    ['internal', null, 'DATABASE_ERROR'],
    ['quantity_cap_exceeded', '/engine/authorize', 'QUANTITY_CAP_EXCEEDED'],
    ['not_found', '/engine/bind-execution', 'TRACE_NOT_FOUND'],
    ['not_found', '/engine/admin/agents/:agent_id/status', 'AGENT_NOT_FOUND'],
    ['not_found', null, 'NOT_FOUND'],
  ] as Array<[ErrorCode, string | null, string]>)('%s on %s is %s', (code, route, irl) => {
    expect(irlErrorCode({ code, route, detail: 'x' })).toBe(irl);
  });

  it('says HEARTBEAT_MISSING only when the missing heartbeat is the one invalid field', () => {
    const missing = { field: 'heartbeat', message: 'is required (LAYER2_ENABLED)' };
    expect(irlErrorCode({ code: 'validation_failed', route: '/engine/authorize', detail: 'x', errors: [missing] })).toBe('HEARTBEAT_MISSING');
    expect(
      irlErrorCode({ code: 'validation_failed', route: '/engine/authorize', detail: 'x', errors: [missing, { field: 'asset', message: 'is required' }] }),
    ).toBe('VALIDATION_FAILED');
  });

  it('is the table of the migration guide', () => {
    const guide = readFileSync(new URL('../../../docs/irl-migration.md', import.meta.url), 'utf8');
    expect(guide).toContain(`<!-- irl-errors:start -->\n${irlErrorCodesTable()}\n<!-- irl-errors:end -->`);
  });
});
