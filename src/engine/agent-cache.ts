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
  /** Hash-only approval (an `/irl` order): the model id a read found the order's hash approved under. */
  private readonly byHash = new Map<string, string>();

  get(agentId: string, modelId: string, modelHashHex: string): KnownAgent | null {
    return this.entries.get(keyOf(agentId, modelId, modelHashHex)) ?? null;
  }

  /**
   * The model id an order naming (`modelId`, `modelHashHex`) was last found approved under by its hash, while the
   * agent and that model are still known here (else null: read it). A hint like the rest: the seal checks it.
   */
  approvedModel(agentId: string, modelId: string, modelHashHex: string): string | null {
    const approved = this.byHash.get(keyOf(agentId, modelId, modelHashHex));
    return approved !== undefined && this.entries.has(keyOf(agentId, approved, modelHashHex)) ? approved : null;
  }

  /** Keeps what a read found: the order's hash is approved for the agent under `approved`. */
  learnApprovedModel(agentId: string, modelId: string, modelHashHex: string, approved: string): void {
    const key = keyOf(agentId, modelId, modelHashHex);
    this.byHash.delete(key);
    if (this.byHash.size >= MAX_ENTRIES) this.byHash.delete(this.byHash.keys().next().value as string);
    this.byHash.set(key, approved);
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
