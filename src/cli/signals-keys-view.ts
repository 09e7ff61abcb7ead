/**
 * Terminal views of the signal service's accounts, keys and outbox for `tradeseal signals keys …` and
 * `tradeseal signals outbox`: plain text, no colours; `--json` returns the records themselves.
 */
import type { OutboxMessage } from '../signals/mail/outbox.js';
import type { IssuedKey, TierChange } from '../signals/ops/keys.js';
import type { KeyListing } from '../signals/store/accounts.js';
import { TIER_SPECS } from '../signals/tiers.js';
import { renderFields } from './engine-views.js';
import { renderTable, type TableStyle } from './table.js';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
const limitOf = (tier: keyof typeof TIER_SPECS): string => {
  const limit = TIER_SPECS[tier].dailyLimit;
  return limit === null ? 'unlimited' : `${limit} per rolling 24 hours`;
};

/** A freshly issued key: the secret once, with the warning that it will not be shown again. */
export function renderIssuedKey(k: IssuedKey): string {
  return [
    k.api_key,
    '',
    renderFields([
      ['key_id', k.key_id],
      ['key_prefix', k.key_prefix],
      ['email', k.email],
      ['account', k.account_created ? `${k.account_id} (created)` : k.account_id],
      ['tier', k.tier],
      ['daily limit', limitOf(k.tier)],
      ['agent_count', k.agent_count],
      ['created_at', iso(k.created_at)],
    ]),
    '',
    'Save this key now: it is shown once, and the store keeps only its SHA-256.',
  ].join('\n');
}

export function renderTierChange(c: TierChange): string {
  const agents = c.agent_count === c.previous_agent_count ? `${c.agent_count}` : `${c.previous_agent_count} -> ${c.agent_count}`;
  return (
    renderFields([
      ['email', c.email],
      ['tier', c.tier === c.previous_tier ? `${c.tier} (unchanged)` : `${c.previous_tier} -> ${c.tier}`],
      ['daily limit', limitOf(c.tier)],
      ['agent_count', agents],
    ]) + '\nEvery key of the account has the new tier from its next request, on every server.'
  );
}

export function renderKeys(keys: KeyListing[], style: TableStyle = {}): string {
  if (keys.length === 0) return 'no keys (issue one: tradeseal signals keys issue --email E --tier T)';
  return renderTable(
    // Whose key and its state are what a reader scans for; the prefix (the key_id names the key) and when it
    // was revoked (the state says whether) give way first.
    [
      'key_id',
      { name: 'key_prefix', priority: 'normal' },
      { name: 'email', priority: 'keep' },
      { name: 'tier', priority: 'keep' },
      'state',
      'created_at',
      { name: 'revoked_at', priority: 'normal' },
      { name: 'last_used_at', priority: 'keep' },
    ],
    keys.map((k) => [
      k.key_id,
      `${k.key_prefix}…`,
      k.email,
      k.tier,
      k.revoked_at ? 'revoked' : 'live',
      iso(k.created_at),
      iso(k.revoked_at),
      iso(k.last_used_at),
    ]),
    style,
  );
}

export function renderOutbox(messages: OutboxMessage[]): string {
  if (messages.length === 0) return 'the outbox is empty (mail is kept here when SMTP_URL is not set)';
  return messages.map((m) => [`--- #${m.id} ${m.created_at.toISOString()}`, `To: ${m.recipient}`, `Subject: ${m.subject}`, '', m.body].join('\n')).join('\n\n');
}
