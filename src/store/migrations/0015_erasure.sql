-- Erasure by crypto-shredding (spec/DECISIONS.md, "Erasure"): the personal data of an agent (its name, and
-- the regulatory block of its traces with the block's salt) are stored encrypted (AES-256-GCM) under a data
-- key of the agent, which the key-management provider wraps. Erasing the agent destroys the wrapped key and
-- nulls the ciphertexts; hashes and proofs stay (the sealed trace carries only the block's commitment).

-- One data key per agent, as the provider wrapped it. Destroyed: wrapped_key is null and destroyed_at set; the
-- row stays, so that no new key can ever be made for an erased agent.
create table agent_data_keys (
  agent_id     uuid primary key,
  provider     text not null,
  key_id       text not null,
  wrapped_key  bytea,
  created_at   timestamptz not null default now(),
  destroyed_at timestamptz,
  check ((wrapped_key is null) = (destroyed_at is not null))
);

-- Agents: the name encrypted (name_enc) when a provider is configured, in plaintext (name) otherwise;
-- both null once erased.
alter table agents alter column name drop not null;
alter table agents add column name_enc bytea;
alter table agents add column erased_at timestamptz;
alter table agents add constraint agents_name_present check (erased_at is not null or name is not null or name_enc is not null);

-- Traces: the regulatory block and its salt, encrypted together (regulatory_enc) when a provider is
-- configured; `regulatory` and `regulatory_salt` keep the plaintext of traces sealed without one. All three
-- are null once the agent is erased (erased_at).
alter table traces add column regulatory_enc bytea;
alter table traces add column erased_at timestamptz;
