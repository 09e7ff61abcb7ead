/**
 * The common-name rule of mutual TLS (docs/decisions/0014-mtls-common-name.md): when the engine serves
 * TLS with client certificates, the verified certificate's common name must be the agent the request acts
 * for, the order's `agent_id` at authorize and the trace's agent at bind, else 403 `mtls_cn_mismatch`.
 *
 * Firms whose certificates name hosts rather than agents give a CN map (setting TLS_CN_MAP): a JSON object
 * from common name to the agent id, or the list of agent ids, that certificate may act for. A common name
 * the map does not list stands for itself, so certificates issued per agent keep working beside it.
 *
 * Pure: values in, verdicts out. The TLS layer (src/http/client-cert.ts) reads the certificate and builds
 * the `ClientIdentity`; the routes apply the rule.
 */
import { forbidden } from '../core/errors.js';
import { deny, PASS, type Verdict } from './denials.js';

/** Common name → the agent ids a certificate with that name may act for. */
export type CnMap = ReadonlyMap<string, readonly string[]>;

/** Who a verified client certificate speaks for. */
export interface ClientIdentity {
  /** The subject's CN; null when the certificate has none, or more than one. */
  commonName: string | null;
  agentIds: readonly string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The identity of a certificate's common name under an optional CN map. */
export function identityOf(commonName: string | null, map: CnMap | null): ClientIdentity {
  if (commonName === null) return { commonName, agentIds: [] };
  return { commonName, agentIds: map?.get(commonName) ?? [commonName] };
}

/** Whether the certificate may act for `agentId`: the rule itself. */
export function commonNameVerdict(identity: ClientIdentity, agentId: string): Verdict {
  if (identity.agentIds.some((a) => a.toLowerCase() === agentId.toLowerCase())) return PASS;
  const cn = identity.commonName === null ? 'no single common name' : `common name "${identity.commonName}"`;
  const mapped =
    identity.agentIds.length === 0 || (identity.agentIds.length === 1 && identity.agentIds[0] === identity.commonName)
      ? ''
      : ` (which acts for ${identity.agentIds.join(', ')})`;
  return deny('mtls_cn_mismatch', `the client certificate has ${cn}${mapped}, not agent ${agentId}`);
}

/**
 * Throws 403 `mtls_cn_mismatch` unless the certificate may act for `agentId`. No identity means the engine
 * does not ask for client certificates: nothing to check.
 */
export function assertCertificateMayActFor(identity: ClientIdentity | undefined, agentId: string): void {
  if (!identity) return;
  const v = commonNameVerdict(identity, agentId);
  if (!v.ok) throw forbidden(v.code, v.detail);
}

/** Reads a CN map document; every bad entry is listed, each naming its common name. */
export function parseCnMap(doc: unknown): { ok: true; map: CnMap } | { ok: false; problems: string[] } {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    return { ok: false, problems: ['must be a JSON object from common name to an agent_id or a list of agent ids'] };
  }
  const map = new Map<string, readonly string[]>();
  const problems: string[] = [];
  for (const [cn, value] of Object.entries(doc)) {
    const ids = typeof value === 'string' ? [value] : value;
    if (cn.trim() === '') problems.push('an empty common name');
    if (!Array.isArray(ids) || ids.length === 0) {
      problems.push(`"${cn}": must be an agent_id or a non-empty list of agent ids`);
      continue;
    }
    const bad = ids.filter((id) => typeof id !== 'string' || !UUID.test(id));
    if (bad.length > 0) {
      problems.push(`"${cn}": ${bad.map((b) => JSON.stringify(b)).join(', ')} ${bad.length === 1 ? 'is not an agent_id' : 'are not agent ids'} (a UUID)`);
      continue;
    }
    map.set(cn, ids as string[]);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, map };
}
