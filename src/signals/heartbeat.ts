/**
 * Issuing signed heartbeats for the compliance engine's Layer 2: the regime in force (its id and broadcast
 * hash as `mta_ref`), a sequence id from one Postgres sequence (strictly increasing across instances), the
 * issuer's clock, and an Ed25519 signature in the scheme asked for (`HEARTBEAT_SIGNATURE_SCHEME`, the
 * `ed25519:` binary layout by default; see src/core/records/heartbeat.ts for both layouts).
 *
 * One statement draws the sequence ids and reads the broadcast in force together, so a heartbeat always
 * names the broadcast that is newest when its id is drawn (never one a cache still holds). The statement
 * draws no id when nothing is broadcast. A server batches (`BatchedDraws`): the requests that arrive while
 * a draw is in flight share the next statement, one id each, so under load a heartbeat costs a fraction of
 * a round trip, and alone it costs one, with no wait. Ids stay strictly increasing across instances: a
 * heartbeat requested after another was answered is drawn by a later statement, so its id is greater.
 */
import type { Sql } from 'postgres';
import { createSigner } from '../core/crypto/ed25519.js';
import { TradesealError } from '../core/errors.js';
import { formatSignature, heartbeatMessage, type SignatureScheme } from '../core/records/heartbeat.js';
import type { SignedHeartbeat } from '../core/records/heartbeat.js';

export type IssuedHeartbeat = SignedHeartbeat & { mta_ref: string };

interface Drawn {
  sequence_id: number;
  regime_id: number;
  mta_ref: string;
}

/** `n` fresh sequence ids (ascending) with the broadcast in force (newest row), in one statement; none when nothing is broadcast. */
export async function drawHeartbeats(sql: Sql, n: number): Promise<Drawn[]> {
  const rows = await sql<Drawn[]>`
    select nextval('heartbeat_sequence_id') as sequence_id, b.regime_id, b.hash as mta_ref
    from (select regime_id, hash from regime_broadcasts order by id desc limit 1) b, generate_series(1, ${n}::int)`;
  return rows.sort((a, b) => a.sequence_id - b.sequence_id);
}

export async function drawHeartbeat(sql: Sql): Promise<Drawn | null> {
  return (await drawHeartbeats(sql, 1))[0] ?? null;
}

/** The most ids one statement draws; more waiting requests go to the next one. */
export const MAX_DRAW_BATCH = 256;

/** One draw statement in flight at a time; the requests that arrive meanwhile share the next (see the module comment). */
export class BatchedDraws {
  private waiting: Array<{ resolve: (d: Drawn | null) => void; reject: (err: unknown) => void }> = [];
  private inFlight = false;

  constructor(private readonly sql: Sql) {}

  draw(): Promise<Drawn | null> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.inFlight || this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, MAX_DRAW_BATCH);
    this.inFlight = true;
    drawHeartbeats(this.sql, batch.length)
      .then(
        (rows) => batch.forEach((w, i) => w.resolve(rows[i] ?? null)),
        (err: unknown) => batch.forEach((w) => w.reject(err)),
      )
      .finally(() => {
        this.inFlight = false;
        this.next();
      });
  }
}

/** Signs heartbeats with one key in one scheme; the key's node:crypto KeyObject is built once. */
export class HeartbeatSigner {
  private readonly signBytes: (message: Uint8Array) => Uint8Array;

  constructor(
    secretKey: Uint8Array,
    readonly scheme: SignatureScheme,
  ) {
    this.signBytes = createSigner(secretKey);
  }

  sign(fields: { sequence_id: number; timestamp_ms: number; regime_id: number; mta_ref: string }): IssuedHeartbeat {
    const hb = { sequence_id: fields.sequence_id, timestamp_ms: fields.timestamp_ms, regime_id: fields.regime_id, mta_ref: fields.mta_ref };
    return { ...hb, signature: formatSignature(this.scheme, this.signBytes(heartbeatMessage(hb, this.scheme))) };
  }

  /** Stamps a drawn heartbeat with `now` and signs it; null when no regime is broadcast. */
  async issue(draw: () => Promise<Drawn | null>, now: () => number): Promise<IssuedHeartbeat | null> {
    const drawn = await draw();
    return drawn ? this.sign({ ...drawn, timestamp_ms: now() }) : null;
  }
}

export interface IssueHeartbeatOptions {
  secretKey: Uint8Array;
  now: number;
  scheme?: SignatureScheme;
}

/** One heartbeat (the CLI's `regime heartbeat`); `regime_not_published` when no regime is broadcast. */
export async function issueHeartbeat(sql: Sql, options: IssueHeartbeatOptions): Promise<IssuedHeartbeat> {
  const hb = await new HeartbeatSigner(options.secretKey, options.scheme ?? 'ed25519').issue(
    () => drawHeartbeat(sql),
    () => options.now,
  );
  if (!hb) throw new TradesealError('regime_not_published', 'no regime is published: there is nothing to sign');
  return hb;
}
