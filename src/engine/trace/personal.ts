/**
 * What is personal data in the engine's store, and how each piece is encrypted under its agent's data key
 * (AES-256-GCM, src/core/crypto/aead.ts), bound by the associated data to the row it belongs to:
 *
 * - a trace's regulatory block (it names decision makers: MiFID II `mifid_decision_maker`, and the account
 *   identifiers around it) together with the salt of its commitment, one value per trace, associated data
 *   `tradeseal trace personal v1|<trace_id>`; the salt is encrypted with the block because with it, the
 *   sealed commitment could be tested against guessed names;
 * - an agent's `name` (free text an operator may fill with a person's name), associated data
 *   `tradeseal agent name v1|<agent_id>`.
 *
 * Not personal, and kept in the clear: the agent's id, limits, models and status; every sealed field of a
 * trace (ids, order, regime, policy, hashes); token client names (operator labels, not an agent's
 * registration). An agent's `status_reason` is an operator's note about the kill switch, stored as given and
 * kept in the audit log too: not a place for personal data.
 */
import { open, seal } from '../../core/crypto/aead.js';
import type { RegulatoryBlock } from './seal.js';

const traceAad = (traceId: string): string => `tradeseal trace personal v1|${traceId.toLowerCase()}`;
const agentNameAad = (agentId: string): string => `tradeseal agent name v1|${agentId.toLowerCase()}`;

export interface TracePersonalPlain {
  regulatory: RegulatoryBlock;
  salt: Buffer;
}

export function sealTracePersonal(key: Buffer, traceId: string, personal: TracePersonalPlain): Buffer {
  const text = JSON.stringify({ regulatory: personal.regulatory, salt: personal.salt.toString('hex') });
  return seal(key, Buffer.from(text, 'utf8'), traceAad(traceId));
}

/** Throws `AeadOpenError` when the value is not this trace's under this key. */
export function openTracePersonal(key: Buffer, traceId: string, sealed: Buffer): TracePersonalPlain {
  const { regulatory, salt } = JSON.parse(open(key, sealed, traceAad(traceId)).toString('utf8')) as { regulatory: RegulatoryBlock; salt: string };
  return { regulatory, salt: Buffer.from(salt, 'hex') };
}

export const sealAgentName = (key: Buffer, agentId: string, name: string): Buffer => seal(key, Buffer.from(name, 'utf8'), agentNameAad(agentId));

/** Throws `AeadOpenError` when the value is not this agent's name under this key. */
export const openAgentName = (key: Buffer, agentId: string, sealed: Buffer): string => open(key, sealed, agentNameAad(agentId)).toString('utf8');
