/**
 * A rotation holds before it is answered, over real HTTP to a real server on a real PostgreSQL:
 *
 * - one interleaving forced step by step: a request from a new address reads the key while the rotation
 *   holds the key's row, and is answered (admitted: it was sent before the rotation) just after the rotation
 *   commits; the same address asked again after the rotation's answer is refused. (That read used to be
 *   written into the admission cache after the rotation had dropped the key, and the old key then answered 200
 *   from that address for up to ENGINE_STATE_REFRESH_MS.)
 * - ten rotations of one key sent at once, with a hammer of requests with that key around them: no request
 *   sent after the first rotation's answer arrived is admitted with the old key, in any of 30 trials.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { issueAccountKey } from '../../src/signals/ops/keys.js';
import { uniqueEmail } from '../helpers/signals-accounts.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { Client, type Answer } from '../reliability/support/http.js';

const TRIALS = 30;
const ROTATIONS = 10;
const HAMMERS = 8;
const REFRESH_MS = 250;

let store: TestStore;
let server: RunningServer;
let client: Client;
let port: number;

beforeAll(async () => {
  store = await testStore({ max: 4 });
  server = await startServer(configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0, host: '127.0.0.1', stateRefreshMs: REFRESH_MS }), {
    services: ['signals'],
  });
  port = Number(new URL(server.url).port);
  client = new Client(server.url, ROTATIONS + HAMMERS + 2);
}, 60_000);
afterAll(async () => {
  client?.close();
  await server?.close();
  await store?.close();
});

const code = (a: { body: string }): string | undefined => (a.body.startsWith('{') ? (JSON.parse(a.body) as { code?: string }).code : undefined);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `GET /v1/account` with `key`, on a connection of its own from the loopback address `from`. */
const accountFrom = (key: string, from: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/v1/account', localAddress: from, agent: false, headers: { 'x-signals-key': key } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });

/** Waits until a session of the test's database whose statement contains `statement` waits for a lock. */
async function waitingForLocks(statement: string): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const [row] = await store.sql<Array<{ n: number }>>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and strpos(query, ${statement}) > 0`;
    if ((row?.n ?? 0) > 0) return;
    if (Date.now() > deadline) throw new Error(`no statement with "${statement}" waits for a lock after 5 s`);
    await sleep(5);
  }
}

describe('a rotation and the reads of the key under way as it commits', () => {
  it('a read begun before the rotation committed and answered after it is not kept: the same address is refused once the rotation has answered', async () => {
    for (let round = 0; round < 5; round++) {
      const issued = await issueAccountKey(store.sql, { email: uniqueEmail('rotate'), tier: 'pro' });
      const key = issued.api_key;
      // The rotation's own admission comes from the cache (one request first), so that it goes straight to the store's row.
      expect((await accountFrom(key, '127.0.0.1')).status).toBe(200);
      // The key was last used an hour ago: a request from a new address takes its IP lock, so it must write the row.
      await store.sql`update signal_keys set last_used_at = now() - interval '1 hour' where key_id = ${issued.key_id}`;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const holds = new Promise<void>((resolve) => (locked = resolve));
      const holding = store.sql.begin(async (tx) => {
        await tx`select 1 from signal_keys where key_id = ${issued.key_id} for update`;
        locked();
        await released;
      });
      try {
        await Promise.race([holds, holding]); // the test holds the key's row
        const rotation = client.send({ method: 'POST', path: '/v1/auth/rotate', headers: { 'x-signals-key': key } });
        await waitingForLocks('update signal_keys set revoked_at'); // the rotation waits for the row
        const from = `127.0.${10 + round}.1`;
        const earlier = accountFrom(key, from);
        await waitingForLocks('update signal_keys s set last_ip'); // and behind it, the read from the new address
        release();
        await holding;
        const rotated = await rotation;
        expect(rotated.status, rotated.body).toBe(200);
        // Sent before the rotation's answer, read before its commit: admitted.
        expect((await earlier).status).toBe(200);
        const again = await accountFrom(key, from);
        expect([again.status, code(again)], again.body).toEqual([403, 'key_revoked']);
      } finally {
        release();
        await holding.catch(() => {});
      }
    }
  }, 60_000);

  it(`${ROTATIONS} concurrent rotations with a hammer of requests around them: no request sent after a rotation's answer is admitted with the old key (${TRIALS} trials)`, async () => {
    const admittedAfter: string[] = [];
    for (let t = 0; t < TRIALS; t++) {
      const key = (await issueAccountKey(store.sql, { email: uniqueEmail('rotate'), tier: 'pro' })).api_key;
      const account = { method: 'GET', path: '/v1/account', headers: { 'x-signals-key': key } };
      let answeredAt: number | null = null;
      const samples: Array<{ sentAfterAnswer: boolean; answer: Answer }> = [];
      const hammer = Promise.all(
        Array.from({ length: HAMMERS }, async () => {
          // Past the admission cache's lifetime after the first answer: an entry written back would be seen.
          while (answeredAt === null || Date.now() < answeredAt + REFRESH_MS + 50) {
            const sentAfterAnswer = answeredAt !== null;
            samples.push({ sentAfterAnswer, answer: await client.send(account) });
          }
        }),
      );
      const rotations = await Promise.all(
        Array.from({ length: ROTATIONS }, () =>
          client.send({ method: 'POST', path: '/v1/auth/rotate', headers: { 'x-signals-key': key } }).then((a) => {
            answeredAt ??= Date.now();
            return a;
          }),
        ),
      );
      await hammer;
      // One rotation wins; the others find the key revoked (by the winner) and say so.
      expect(
        rotations.filter((a) => a.status === 200),
        rotations.map((a) => a.body).join('\n'),
      ).toHaveLength(1);
      for (const a of rotations.filter((x) => x.status !== 200)) expect([a.status, code(a)]).toEqual([403, 'key_revoked']);
      const after = samples.filter((s) => s.sentAfterAnswer);
      expect(after.length).toBeGreaterThan(0);
      for (const s of after)
        if (s.answer.status !== 403 || code(s.answer) !== 'key_revoked') admittedAfter.push(`trial ${t + 1}: ${s.answer.status} ${s.answer.body.slice(0, 80)}`);
      // Requests sent before the answer were admitted or refused as revoked, never failed.
      expect(samples.filter((s) => s.answer.status !== 200 && code(s.answer) !== 'key_revoked').map((s) => `${s.answer.status} ${s.answer.body}`)).toEqual([]);
    }
    expect(admittedAfter).toEqual([]);
  }, 300_000);
});
