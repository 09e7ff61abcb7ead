/**
 * Table-driven tests of the pure mutual-TLS rules: the common-name rule and the CN map
 * (src/engine/mtls.ts), and `cert_expiry_status` (src/http/cert-expiry.ts). The same rules over real
 * HTTPS with real certificates are in test/http/mtls.test.ts and test/http/tls-server.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { assertCertificateMayActFor, commonNameVerdict, identityOf, parseCnMap, type CnMap } from '../../../src/engine/mtls.js';
import { TradesealError } from '../../../src/core/errors.js';
import { certExpiryStatus, EXPIRING_WITHIN_MS } from '../../../src/http/cert-expiry.js';

const A = '0b4f5a4e-1d0c-4a55-9d1e-2f6f1c3a9b01';
const B = '7c1e2d3f-4a5b-4c6d-8e9f-a0b1c2d3e4f5';
const MAP: CnMap = new Map([
  ['trading-host-1', [A, B]],
  ['trading-host-2', [B]],
]);

describe('commonNameVerdict', () => {
  const table: Array<[string, string | null, CnMap | null, string, 'PASS' | string]> = [
    ['CN is the agent_id', A, null, A, 'PASS'],
    ['UUIDs compare without regard to case', A.toUpperCase(), null, A, 'PASS'],
    ['CN is another agent', B, null, A, `the client certificate has common name "${B}", not agent ${A}`],
    ['CN is a host name, no map', 'trading-host-1', null, A, 'the client certificate has common name "trading-host-1", not agent ' + A],
    ['mapped host acts for its first agent', 'trading-host-1', MAP, A, 'PASS'],
    ['mapped host acts for its second agent', 'trading-host-1', MAP, B, 'PASS'],
    [
      'mapped host, agent not in its list',
      'trading-host-2',
      MAP,
      A,
      `the client certificate has common name "trading-host-2" (which acts for ${B}), not agent ${A}`,
    ],
    ['a CN the map does not list stands for itself', A, MAP, A, 'PASS'],
    ['an unlisted host name is no agent', 'trading-host-9', MAP, A, `the client certificate has common name "trading-host-9", not agent ${A}`],
    ['no single common name', null, MAP, A, `the client certificate has no single common name, not agent ${A}`],
  ];
  for (const [name, cn, map, agentId, expected] of table) {
    it(name, () => {
      const v = commonNameVerdict(identityOf(cn, map), agentId);
      expect(v).toEqual(expected === 'PASS' ? { ok: true } : { ok: false, code: 'mtls_cn_mismatch', detail: expected });
    });
  }

  it('throws 403 mtls_cn_mismatch at the route, and checks nothing when the engine asks for no certificate', () => {
    let thrown: unknown;
    try {
      assertCertificateMayActFor(identityOf(B, null), A);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(TradesealError);
    expect([(thrown as TradesealError).status, (thrown as TradesealError).code]).toEqual([403, 'mtls_cn_mismatch']);
    expect(() => assertCertificateMayActFor(undefined, A)).not.toThrow();
    expect(() => assertCertificateMayActFor(identityOf(A, null), A)).not.toThrow();
  });
});

describe('parseCnMap', () => {
  it('reads a common name to one agent_id or a list of them', () => {
    const parsed = parseCnMap({ 'trading-host-1': [A, B], 'trading-host-2': B });
    expect(parsed).toEqual({
      ok: true,
      map: new Map([
        ['trading-host-1', [A, B]],
        ['trading-host-2', [B]],
      ]),
    });
  });

  it('does not read inherited properties as common names', () => {
    const parsed = parseCnMap({});
    expect(parsed.ok && identityOf('constructor', parsed.map)).toEqual({ commonName: 'constructor', agentIds: ['constructor'] });
  });

  const bad: Array<[string, unknown, string[]]> = [
    ['an array', [A], ['must be a JSON object from common name to an agent_id or a list of agent ids']],
    ['null', null, ['must be a JSON object from common name to an agent_id or a list of agent ids']],
    [
      'every bad entry, each named',
      { h1: 'not-a-uuid', h2: [], h3: [A, 7, 'x'], h4: { id: A } },
      [
        '"h1": "not-a-uuid" is not an agent_id (a UUID)',
        '"h2": must be an agent_id or a non-empty list of agent ids',
        '"h3": 7, "x" are not agent ids (a UUID)',
        '"h4": must be an agent_id or a non-empty list of agent ids',
      ],
    ],
    ['an empty common name', { '': A }, ['an empty common name']],
  ];
  for (const [name, doc, problems] of bad) {
    it(`refuses ${name}`, () => expect(parseCnMap(doc)).toEqual({ ok: false, problems }));
  }
});

describe('certExpiryStatus', () => {
  const NOW = Date.UTC(2026, 0, 1);
  const DAY = 86_400_000;
  const table: Array<[string, number, 'ok' | 'expiring' | 'expired']> = [
    ['a year left', NOW + 365 * DAY, 'ok'],
    ['30 days and a second left', NOW + EXPIRING_WITHIN_MS + 1000, 'ok'],
    ['exactly 30 days left', NOW + 30 * DAY, 'expiring'],
    ['10 days left', NOW + 10 * DAY, 'expiring'],
    ['its last valid instant (notAfter is inclusive, RFC 5280)', NOW, 'expiring'],
    ['a millisecond past notAfter', NOW - 1, 'expired'],
    ['long expired', NOW - 400 * DAY, 'expired'],
  ];
  for (const [name, notAfter, expected] of table) {
    it(name, () => expect(certExpiryStatus(notAfter, NOW)).toBe(expected));
  }
});
