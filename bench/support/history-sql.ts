/**
 * The statement that seeds one chunk of history (./history.ts): one INSERT … SELECT over generate_series that
 * writes the traces, their trace_idempotency rows (authorized traces) and orphan_executions rows (ORPHAN
 * traces), as authorize, bind, the expiry sweep and reconciliation would have left them.
 *
 * Each trace's draws come from `hashint8extended(i, stream)` of its global index `i`, so a chunk is the same
 * whichever worker runs it; only the random bits of the ids come from gen_random_uuid(). Per trace:
 * - `txn_time`: its slot of the month (`slot_ms` wide) plus a draw within the slot, whole milliseconds, so the
 *   month's traces are evenly spread and in index order;
 * - `trace_id`: the engine's layout (src/core/trace-id.ts, a UUIDv8): random bits, version 8, the variant
 *   of the random uuid (10), and the 48-bit Unix ms of txn_time as the last group, exactly what id.ts reads back;
 * - the mix: 1% ORPHAN, 4% EXPIRED, 3% DIVERGENT (twice the quantity), 0.5% MISMATCH (side), the rest
 *   MATCHED (5% of those a Partial fill below the quantity); an EXPIRED draw younger than the expiry plus a
 *   minute is MATCHED, so nothing is left Pending;
 * - `sealed`: the trace's RFC 8785 (JCS) text in the layout of authorize (src/engine/authorize.ts) or, for an
 *   ORPHAN, of reconciliation (src/engine/reconcile/orphan.ts): keys sorted, ASCII only, numbers as
 *   PostgreSQL prints a float8 (the shortest text that round-trips, which is what JCS asks for in this range);
 * - `reasoning_hash` = SHA-256 of `sealed` and `final_proof` = SHA-256(reasoning_hash ‖ "||" ‖ exchange_tx_id),
 *   as the engine computes them, so the traces verify; the `mta` and `policy` members come from the caller.
 *
 * The lateral subqueries end in `offset 0` so that the planner keeps them apart: pulled up, each use of a
 * column would repeat its expression (the sealed text was built three times, and its hash twice).
 */

/** The parameters of the statement, in order ($1 … $12). */
export interface ChunkParams {
  from: number;
  to: number;
  /** Global index of the month's first trace. */
  offset: number;
  monthStartMs: number;
  /** Month length / traces in the month, ms. */
  slotMs: number;
  agents: readonly string[];
  /** Each agent's latent_fingerprint (64 hex), in the order of `agents`. */
  fingerprints: readonly string[];
  /** JCS text of the `mta` member of the month's authorized traces. */
  mta: string;
  /** JCS text of the `policy` member of an authorized trace, and of an ORPHAN one. */
  policyPass: string;
  policyOrphan: string;
  expiryMs: number;
  nowMs: number;
}

export const chunkValues = (p: ChunkParams): unknown[] => [
  p.from,
  p.to,
  p.offset,
  p.monthStartMs,
  p.slotMs,
  p.agents,
  p.fingerprints,
  p.mta,
  p.policyPass,
  p.policyOrphan,
  p.expiryMs,
  p.nowMs,
];

/** A uniform draw in [0, 1) of stream `s` for the trace of index `n.i`. */
const d = (s: number): string => `((hashint8extended(n.i, ${s}) & 1099511627775)::float8 / 1099511627776)`;

const ASSETS = "array['AAPL','MSFT','NVDA','AMZN','GOOGL','META','TSLA','JPM','XOM','SPY','QQQ','GLD','TLT','IWM','BRK.B','V','UNH','HD','KO','PEP']";
const PRICES = 'array[190,410,480,180,150,490,240,195,110,520,440,215,92,205,410,275,520,350,62,170]::float8[]';
const VENUES = "array['XNAS','XNYS','ARCX','BATS']";

/** ISO 8601 with milliseconds in UTC, as Date.prototype.toISOString writes it. */
const iso = (e: string): string => `to_char((${e}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const hex = (e: string): string => `encode(sha256(convert_to(${e}, 'UTF8')), 'hex')`;

/*
 * The sealed texts, built by one concat() each (one allocation, where a chain of || copies the text once per
 * piece). concat() writes a float8 as its output function does: the shortest text that round-trips.
 */
const SEALED_AUTHORIZED = `concat(
  '{"agent":{"agent_id":"', c.agent_id, '","feature_schema_id":"fs-1","latent_fingerprint":"', c.fingerprint,
  '"},"bitemporal":{"time_source":"engine_clock","txn_time":"', c.txn_iso, '","valid_time":"', ${iso("c.at - c.lag_ms * interval '1 millisecond'")},
  '"},"execution":{"action":"', c.side, '","asset":"', c.asset, '","client_order_id":"', c.client_order_id,
  '","limit_price":', coalesce(c.limit_price::text, 'null'), ',"multiplier":1,"notional":', c.notional,
  ',"notional_currency":"USD","order_type":"', c.order_type, '","quantity":', c.qty,
  ',"reduce_only":false,"stop_price":null,"venue_id":"', c.venue,
  '"},"heartbeat":{"drift_ms":', c.drift_ms, ',"sequence_id":', c.i + 1, ',"signature_valid":true},"mta":', $8::text,
  ',"policy":', $9::text, ',"regulatory":null,"trace_id":"', c.trace_id, '","version":"Reasoning_Trace_v1"}')`;

const SEALED_ORPHAN = `concat(
  '{"agent":{"agent_id":"', c.agent_id, '","feature_schema_id":null,"latent_fingerprint":null},"bitemporal":{"time_source":"exchange_drop_copy","txn_time":"',
  c.txn_iso, '","valid_time":"', c.exec_iso, '"},"execution":{"action":"', c.side, '","asset":"', c.asset,
  '","client_order_id":null,"limit_price":null,"multiplier":1,"notional":', c.notional, ',"notional_currency":"USD","order_type":null,"quantity":', c.qty,
  ',"reduce_only":false,"stop_price":null,"venue_id":null},"heartbeat":{"drift_ms":null,"sequence_id":null,"signature_valid":false},',
  '"mta":{"allowed_sides":null,"hash":null,"max_notional_scale":null,"regime_id":null,"regime_label":null,"risk_level":null,"signature_valid":false,"version":null},',
  '"policy":', $10::text, ',"reconciliation":{"exchange_tx_id":"', c.exchange_tx_id, '","execution_time":"', c.exec_iso, '","price":', c.exec_price,
  ',"source":"exchange_drop_copy"},"regulatory":null,"trace_id":"', c.trace_id, '","version":"Reasoning_Trace_v1"}')`;

/** The statement for one chunk; parameters from `chunkValues`. Answers one row: how many traces it wrote. */
export const CHUNK_STATEMENT = `
with rows as (
  select c.*, s.sealed, h.reasoning_hash,
         case when c.exchange_tx_id is null then null else ${hex("h.reasoning_hash || '||' || c.exchange_tx_id")} end as final_proof
  from generate_series($1::bigint, $2::bigint - 1) as g(k)
  cross join lateral (select $3::bigint + g.k as i) n
  cross join lateral (
    select ($4::bigint + floor((g.k + ${d(0)}) * $5::float8))::bigint as ms,
           floor(${d(1)} * 1000)::int as u,
           1 + floor(${d(2)} * cardinality($6::uuid[]))::int as agent,
           1 + floor(${d(3)} * 20)::int as a,
           (1 + floor(${d(4)} * ${d(5)} * 500))::float8 as qty,
           case when ${d(6)} < 0.62 then 'Long' else 'Short' end as side,
           ${d(7)} as ot, ${d(8)} as fill, ${d(9)} as slip,
           3 + floor(${d(10)} * 400)::int as drift_ms, floor(${d(11)} * 250)::int as lag_ms,
           20 + floor(${d(12)} * 3000)::int as fill_ms, 5 + floor(${d(13)} * 400)::int as bind_ms,
           3600000 + floor(${d(14)} * 72000000)::bigint as orphan_lag_ms,
           (${VENUES})[1 + floor(${d(15)} * 4)::int] as venue,
           gen_random_uuid()::text as r
    offset 0
  ) b
  cross join lateral (
    select timestamptz 'epoch' + b.ms * interval '1 millisecond' as at,
           lpad(to_hex(b.ms), 12, '0') as t,
           ${iso("timestamptz 'epoch' + b.ms * interval '1 millisecond'")} as txn_iso,
           case when b.u < 10 then 'ORPHAN'
                when b.u < 50 and b.ms + $11::bigint + 60000 < $12::bigint then 'EXPIRED'
                when b.u < 80 and b.u >= 50 then 'DIVERGENT'
                when b.u < 85 and b.u >= 80 then 'MISMATCH'
                else 'MATCHED' end as kind,
           round(((${PRICES})[b.a] * (1 + 0.25 * sin(b.ms::float8 / 4e10 + b.a)))::numeric, 2)::float8 as price
    offset 0
  ) m
  cross join lateral (
    select n.i, m.at, ($6::uuid[])[b.agent] as agent_id, ($7::text[])[b.agent] as fingerprint, m.kind, m.kind = 'ORPHAN' as orphan, b.side, (${ASSETS})[b.a] as asset, b.qty, b.venue,
           b.drift_ms, b.lag_ms, m.price, m.txn_iso,
           (substr(b.r, 1, 8) || '-' || substr(b.r, 10, 4) || '-8' || substr(b.r, 16, 3) || '-' || substr(b.r, 20, 4) || '-' || m.t)::uuid as trace_id,
           case when m.kind = 'ORPHAN' then '' else 'ord-' || lpad(n.i::text, 10, '0') end as client_order_id,
           case when m.kind = 'ORPHAN' then null when b.ot < 0.6 then 'Market' when b.ot < 0.9 then 'Limit' when b.ot < 0.95 then 'Twap' else 'Vwap' end as order_type,
           case when m.kind <> 'ORPHAN' and b.ot >= 0.6 and b.ot < 0.9 then m.price end as limit_price,
           round((b.qty * m.price)::numeric, 2)::float8 as notional,
           case when m.kind = 'ORPHAN' then 'UNAUTHORIZED' else 'PASS' end as policy_result,
           case when m.kind = 'EXPIRED' then null else concat(b.venue, '-', replace(left(m.txn_iso, 10), '-', ''), '-', lpad(n.i::text, 10, '0')) end as exchange_tx_id,
           case when m.kind = 'EXPIRED' then null when m.kind = 'MATCHED' and b.fill < 0.05 then 'Partial' else 'Filled' end as execution_status,
           case when m.kind = 'ORPHAN' then m.at - b.orphan_lag_ms * interval '1 millisecond'
                when m.kind = 'EXPIRED' then null else m.at + b.fill_ms * interval '1 millisecond' end as exec_at,
           case when m.kind = 'ORPHAN' then ${iso("m.at - b.orphan_lag_ms * interval '1 millisecond'")} end as exec_iso,
           b.bind_ms,
           case when m.kind = 'EXPIRED' then null when m.kind = 'DIVERGENT' then b.qty * 2
                when m.kind = 'MATCHED' and b.fill < 0.05 then ceil(b.qty * 0.6) else b.qty end as exec_qty,
           case when m.kind = 'EXPIRED' then null when m.kind = 'MISMATCH' then (case b.side when 'Long' then 'Short' else 'Long' end) else b.side end as exec_side,
           case when m.kind = 'EXPIRED' then null when m.kind = 'ORPHAN' then m.price else round((m.price * (1 + (b.slip - 0.5) * 0.002))::numeric, 2)::float8 end as exec_price
    offset 0
  ) c
  cross join lateral (select case when c.orphan then ${SEALED_ORPHAN} else ${SEALED_AUTHORIZED} end as sealed offset 0) s
  cross join lateral (select ${hex('s.sealed')} as reasoning_hash offset 0) h
), traces_in as (
  insert into traces (trace_id, txn_time, agent_id, client_order_id, status, verification_status, action, asset, quantity, notional,
                      notional_currency, reasoning_hash, sealed, policy_result, exchange_tx_id, execution_status, execution_time,
                      executed_asset, executed_quantity, executed_side, execution_price, divergence_reason, final_proof, bound_at, expired_at)
  select r.trace_id, r.at, r.agent_id, r.client_order_id, r.kind, initcap(r.kind), r.side, r.asset, r.qty, r.notional,
         'USD', r.reasoning_hash, r.sealed, r.policy_result, r.exchange_tx_id, r.execution_status, r.exec_at,
         case when r.exchange_tx_id is null then null else r.asset end, r.exec_qty, r.exec_side, r.exec_price,
         case r.kind when 'DIVERGENT' then 'executed_quantity: authorized ' || r.qty || ', executed ' || r.exec_qty || ' (relative difference 1 > tolerance 0.0001)'
                     when 'MISMATCH' then 'executed_side: authorized ' || r.side || ', executed ' || r.exec_side end,
         r.final_proof,
         case when r.kind in ('MATCHED', 'DIVERGENT', 'MISMATCH') then r.exec_at + r.bind_ms * interval '1 millisecond' end,
         case when r.kind = 'EXPIRED' then r.at + ($11::bigint + r.bind_ms * 100) * interval '1 millisecond' end
  from rows r
  returning trace_id, txn_time, agent_id, client_order_id, status, reasoning_hash, exchange_tx_id
), orphans_in as (
  insert into orphan_executions (exchange_tx_id, trace_id, txn_time, agent_id)
  select exchange_tx_id, trace_id, txn_time, agent_id from traces_in where status = 'ORPHAN'
  returning 1
), idempotency_in as (
  insert into trace_idempotency (agent_id, client_order_id, order_hash, trace_id, txn_time, response)
  select agent_id, client_order_id, ${hex("client_order_id || ':' || trace_id::text")}, trace_id, txn_time,
         jsonb_build_object('trace_id', trace_id, 'reasoning_hash', reasoning_hash, 'authorized', true, 'shadow_blocked', false)
  from traces_in where status <> 'ORPHAN'
  returning 1
)
select (select count(*) from traces_in)::int as traces, (select count(*) from idempotency_in)::int as idempotency,
       (select count(*) from orphans_in)::int as orphans`;
