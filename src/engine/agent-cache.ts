/**
 * What a process last read of an agent that may take authorize's short path: Active, not erased, no
 * open-exposure cap, and the model version approved. It is a hint, never an authority: an order judged with
 * these facts is sealed by a statement that first checks them against the agent's row and approved models
 * (src/engine/store/traces.ts, the seal's guard) and writes nothing when any differs; the order is then
 * judged again from a fresh read. So a suspension, an erasure or a changed limit holds for every order whose
 * sealing statement begins after it committed, as it does for one that reads the registry first.
 */
import type { AgentForAuthorize } from './store/agents.js';

const MAX_ENTRIES = 10_000;

/** The facts the short path judges an order by, and that its sealing statement checks. */
export interface KnownAgent {
  model_id: string;
  model_hash_hex: string;
  max_notional: number;
  allowed_regimes: AgentForAuthorize['allowed_regimes'];
}

const keyOf = (agentId: string, modelId: string, modelHashHex: string): string => `${agentId.toLowerCase()}\u0000${modelId}\u0000${modelHashHex}`;

export class AgentCache {
  private readonly entries = new Map<string, KnownAgent>();

  get(agentId: string, modelId: string, modelHashHex: string): KnownAgent | null {
    return this.entries.get(keyOf(agentId, modelId, modelHashHex)) ?? null;
  }

  /** Keeps what a registry read found, when it is an agent the short path may judge; else forgets it. */
  learn(agentId: string, modelId: string, modelHashHex: string, facts: AgentForAuthorize | null): void {
    const key = keyOf(agentId, modelId, modelHashHex);
    this.entries.delete(key);
    if (!facts || facts.status !== 'Active' || facts.erased || !facts.model_registered || facts.max_open_notional !== null) return;
    // The oldest entry makes room (a Map iterates in insertion order, and a learned entry is re-inserted).
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { model_id: modelId, model_hash_hex: modelHashHex, max_notional: facts.max_notional, allowed_regimes: facts.allowed_regimes });
  }

  forget(agentId: string, modelId: string, modelHashHex: string): void {
    this.entries.delete(keyOf(agentId, modelId, modelHashHex));
  }
}
