/**
 * Queuing `regime_change` deliveries from the regime broadcast stream, against a real store: one delivery per
 * webhook of a Pro-or-above account for each change of the regime in force (a manual broadcast, the pipeline's, a
 * release), once the broadcast commits (the signal service's subscription, `queueRegimeChanges`, which the webhook
 * worker runs before each round); nothing for the first broadcast, for a broadcast that repeats the regime, for a
 * pipeline run under an override, or when the transaction rolls back; each broadcast read once.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SecretKeeper } from '../../../src/secrets/stored-secret.js';
import { publishFromPipeline, publishManual, releaseOverride } from '../../../src/store/regime-broadcasts.js';
import type { Regime } from '../../../src/core/vocabulary.js';
import type { Tier } from '../../../src/signals/tiers.js';
import { queueRegimeChanges, regimeChangeEvent } from '../../../src/signals/webhooks/regime-change.js';
import { putWebhook } from '../../../src/signals/webhooks/store.js';
import type { SqlOrTx } from '../../../src/store/transaction.js';
import { testStore, type TestStore } from '../../helpers/db.js';

let store: TestStore;
beforeEach(async () => {
  store = await testStore();
});
afterEach(async () => store?.close());

async function account(tier: Tier, webhook = true): Promise<string> {
  const id = randomUUID();
  await store.sql`insert into signal_accounts (account_id, email, tier) values (${id}, ${`${id}@example.test`}, ${tier})`;
  if (webhook) await putWebhook(store.sql, new SecretKeeper(null), id, `https://hooks.example.com/${id}`, 'whsec_test');
  return id;
}

const manual = (regime: Regime, risk_score = 0.5, date = '2024-03-20') =>
  publishManual(store.sql, { date, regime, risk_score, model_version: 'manual', reason: 'test', published_by: 'test' });

/** The deliveries queued, once the subscription has read the stream. */
const deliveries = async () => {
  await queueRegimeChanges(store.sql);
  return store.sql<
    Array<{ account_id: string; event: string; payload: { id: string; type: string; created_at: string; regime_change: Record<string, unknown> } }>
  >`
    select account_id, event, payload from webhook_deliveries order by created_at, delivery_id`;
};

/** A published day of the pipeline (what a release returns to). */
async function publishedDay(date: string, regime: Regime, risk: number): Promise<void> {
  const runId = randomUUID();
  await store.sql`insert into model_runs (run_id, started_at, status, model_version, seed, parameters) values (${runId}, now(), 'published', 'hmm-test', 7, '{}')`;
  await store.sql`
    insert into signal_days (date, run_id, regime, prob_expansion, prob_recovery, prob_tightening, prob_risk_off, risk_score, confidence,
      persistence_days, expected_duration_remaining_days, level_bn, change_4w_bn, liquidity_zscore, liquidity_trend, pc1, pc2, pc3, pc4,
      variance_explained_pct, pca_fit_date, hmm_fit_date, data_vintage)
    values (${date}, ${runId}, ${regime}, 0.1, 0.1, 0.1, 0.7, ${risk}, 'HIGH', 3, 10, 5000, -10, -0.5, 'CONTRACTING', 0, 0, 0, 0,
      ${[40, 20, 10, 5]}, ${date}, ${date}, now())`;
}

describe('regimeChangeEvent', () => {
  const at = new Date('2024-03-20T22:00:00.000Z');
  it.each([
    ['expansion', 'risk_off', '0%', 'Expansion', 'Risk-off'],
    ['risk_off', 'recovery', '75%', 'Risk-off', 'Recovery'],
    ['recovery', 'tightening', '25%', 'Recovery', 'Tightening'],
    ['tightening', 'expansion', '100%', 'Tightening', 'Expansion'],
  ] as const)('%s → %s', (from, to, exposure, fromLabel, toLabel) => {
    expect(
      regimeChangeEvent(
        { regime: from },
        { regime: to, risk_score: 0.42, date: '2024-03-20', published_at: at, available_at: '2024-03-21T10:30:00.000Z' },
        'e1',
      ),
    ).toEqual({
      id: 'e1',
      type: 'regime_change',
      created_at: '2024-03-20T22:00:00.000Z',
      regime_change: {
        from,
        to,
        from_label: fromLabel,
        to_label: toLabel,
        equity_exposure: exposure,
        risk_score: 0.42,
        date: '2024-03-20',
        available_at: '2024-03-21T10:30:00.000Z',
      },
    });
  });

  it('is null for the first broadcast and for a repeat of the regime', () => {
    const next = { regime: 'expansion' as const, risk_score: 0.1, date: '2024-03-20', published_at: at };
    expect(regimeChangeEvent(null, next)).toBeNull();
    expect(regimeChangeEvent({ regime: 'expansion' }, next)).toBeNull();
  });
});

describe('a change of the broadcast in force queues one delivery per Pro-or-above webhook', () => {
  it('manual broadcasts: nothing for the first or a repeat, one per eligible webhook for a change', async () => {
    const eligible = [await account('pro'), await account('engine_sidecar'), await account('engine_audit'), await account('owner')];
    await account('free');
    await account('starter');
    await account('pro', false);

    await manual('expansion', 0.1);
    expect(await deliveries()).toHaveLength(0);
    // The same regime with another risk score and day: no transition.
    await manual('expansion', 0.2, '2024-03-21');
    expect(await deliveries()).toHaveLength(0);

    const b = await manual('risk_off', 0.93, '2024-03-22');
    const queued = await deliveries();
    expect(queued.map((d) => d.account_id).sort()).toEqual([...eligible].sort());
    const ids = new Set(queued.map((d) => d.payload.id));
    expect(ids.size).toBe(1);
    for (const d of queued) {
      expect(d.event).toBe('regime_change');
      expect(d.payload).toEqual({
        id: [...ids][0],
        type: 'regime_change',
        created_at: b.published_at.toISOString(),
        // An operator's broadcast has no publication instant of a day: it is in force from its published_at.
        regime_change: {
          from: 'expansion',
          to: 'risk_off',
          from_label: 'Expansion',
          to_label: 'Risk-off',
          equity_exposure: '0%',
          risk_score: 0.93,
          date: '2024-03-22',
          available_at: null,
        },
      });
    }
    await manual('risk_off', 0.95, '2024-03-23');
    expect(await deliveries()).toHaveLength(4);
  });

  it("the pipeline's broadcast queues once the run commits, and not at all when the transaction rolls back or an override holds", async () => {
    const pro = await account('pro');
    const pipeline = (sql: SqlOrTx, regime: Regime) =>
      publishFromPipeline(sql, {
        date: '2024-04-01',
        regime,
        risk_score: 0.3,
        model_version: 'hmm-test',
        reason: 'run',
        published_by: 'pipeline',
        available_at: '2024-04-02T10:30:00.000Z',
      });
    await store.sql.begin((tx) => pipeline(tx, 'expansion'));
    await store.sql.begin((tx) => pipeline(tx, 'tightening'));
    expect(
      (await deliveries()).map((d) => [d.account_id, d.payload.regime_change.from, d.payload.regime_change.to, d.payload.regime_change.equity_exposure]),
    ).toEqual([[pro, 'expansion', 'tightening', '25%']]);
    // The pipeline's event carries when the broadcast day was published: from then on a subscriber can act on it.
    expect((await deliveries())[0]!.payload.regime_change.available_at).toBe('2024-04-02T10:30:00.000Z');

    // A run that fails after broadcasting leaves neither the broadcast nor its delivery.
    await expect(
      store.sql.begin(async (tx) => {
        await pipeline(tx, 'risk_off');
        throw new Error('the run failed later');
      }),
    ).rejects.toThrow('the run failed later');
    expect(await deliveries()).toHaveLength(1);

    // Under an operator's override the pipeline broadcasts nothing, so it queues nothing.
    await manual('recovery');
    expect(await deliveries()).toHaveLength(2);
    const held = await store.sql.begin((tx) => pipeline(tx, 'risk_off'));
    expect(held.broadcast).toBeNull();
    expect(await deliveries()).toHaveLength(2);
  });

  it('reads each broadcast once: subscribers running at the same time queue each transition once', async () => {
    const pro = await account('pro');
    await manual('expansion');
    for (const regime of ['risk_off', 'recovery', 'tightening', 'expansion'] as const) await manual(regime);
    // Five readers at once (the webhook workers of several servers): the cursor's row lock makes them take turns.
    const counts = await Promise.all(Array.from({ length: 5 }, () => queueRegimeChanges(store.sql)));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(4);
    // One transaction queued them all: in the order of the broadcasts, as their events say.
    const queued = (await deliveries()).sort((a, b) => a.payload.created_at.localeCompare(b.payload.created_at));
    expect(queued.map((d) => [d.account_id, d.payload.regime_change.from, d.payload.regime_change.to])).toEqual([
      [pro, 'expansion', 'risk_off'],
      [pro, 'risk_off', 'recovery'],
      [pro, 'recovery', 'tightening'],
      [pro, 'tightening', 'expansion'],
    ]);
  });

  it("a release queues only when the regime it returns to differs from the override's", async () => {
    await account('pro');
    await publishedDay('2024-05-01', 'risk_off', 0.9);
    await manual('expansion');
    await manual('risk_off');
    expect(await deliveries()).toHaveLength(1);
    // The override says risk_off, and so does the newest published day: no transition.
    await releaseOverride(store.sql, 'test', null);
    expect(await deliveries()).toHaveLength(1);
    await manual('recovery');
    expect(await deliveries()).toHaveLength(2);
    await releaseOverride(store.sql, 'test', 'all clear');
    const last = (await deliveries())[2]!;
    expect(last.payload.regime_change).toMatchObject({ from: 'recovery', to: 'risk_off', equity_exposure: '0%', risk_score: 0.9, date: '2024-05-01' });
  });
});
