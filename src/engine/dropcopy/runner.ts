/**
 * Runs the FIX drop-copy session in `tradeseal serve`: exactly one process of all the servers on the database runs
 * it, and only while it holds `ADVISORY_LOCKS.dropCopySession`.
 *
 * Every server started with the engine and FIX_DROPCOPY_ROLE stands: it tries to take the lock every
 * `LEADER_RETRY_MS` on a connection it reserves for the attempt. The one that takes it keeps that connection for
 * as long as it runs the session, and every write of the session (fills, rejects, the watermark, the session store)
 * goes through it: when the connection dies, the lock is gone and so is the means to write. On taking the lock it
 * raises the session row's `epoch`; every write is fenced on it, so an instance that lost the lock and has not yet
 * noticed writes nothing once another has taken over. It checks its connection every second; a failed check
 * stops the session at once (no logout: nothing it would do next could be recorded) and it stands again.
 *
 * Failover costs at most the lock check and the retry (about two seconds) plus the peer's reconnection: the new
 * holder starts from the persisted watermark, the peer's higher MsgSeqNum shows the gap, and the peer resends what
 * the old holder had not committed; fills applied before are duplicates, which change nothing.
 *
 * Initiator: connects to the exchange and sends its Logon; a Logon unanswered within `FIX_DROPCOPY_LOGON_TIMEOUT_S`
 * ends the attempt. It connects again after a failure or a drop, waiting `FIX_DROPCOPY_RECONNECT_S`, doubled with
 * each attempt that fails in a row up to `FIX_DROPCOPY_RECONNECT_MAX_S`, with jitter (backoff.ts); the state row
 * says why the last attempt failed and when the next is due (`state_detail`).
 * Acceptor: listens on `FIX_DROPCOPY_HOST` only (not every interface, as jspurefix's acceptor would). A connection
 * from an address outside `FIX_DROPCOPY_ALLOW` (when set) is closed at once; any other waits at the door
 * (logon-gate.ts) until it has sent this session's Logon, within the Logon timeout, without holding the session's
 * place: a stranger neither blocks nor displaces the exchange. One session at a time: a connection whose Logon
 * passes while a session runs is closed (a peer whose connection died unnoticed gets in once the open one fails
 * its heartbeat). The listener holds at most FIX_DROPCOPY_MAX_CONNECTIONS connections, and
 * FIX_DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS from one address (src/core/net/connection-caps.ts); one more is closed at
 * once. Every Logon refused, at the door or by the session, is recorded among the refused messages and audited:
 * the first of its address and kind in a minute in full, the others counted in one record (refusal-tally.ts).
 * On the embedded store locks never block: the one process runs it.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import tls from 'node:tls';
import type postgres from 'postgres';
import type { IJsFixConfig, ISessionDescription, JsFixLoggerFactory } from 'jspurefix';
import {
  DROPCOPY_LOGON_TIMEOUT_S,
  DROPCOPY_MAX_CONNECTIONS,
  DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS,
  DROPCOPY_RECONNECT_MAX_S,
  type Config,
  type DropCopyConfig,
} from '../../core/config.js';
import { capConnections } from '../../core/net/connection-caps.js';
import { ADVISORY_LOCKS, tryAdvisoryLock } from '../../store/advisory-lock.js';
import type { Sql } from '../../store/driver.js';
import { LEADER_RETRY_MS } from '../../store/leader.js';
import { appendAudit } from '../audit/append.js';
import { loadPolicy } from '../policy/policy.js';
import { comparisonSettings } from '../reconcile/compare.js';
import { reconnectDelayMs } from './backoff.js';
import type { DropCopyPipeline } from './inbound.js';
import { allowListOf, awaitLogon, isAllowed, type RefusedConnection } from './logon-gate.js';
import { loadFix, type FixRuntime } from './load.js';
import type { DropCopyMetrics } from './metrics.js';
import { PgSessionStore } from './pg-store.js';
import { countedReason, REFUSAL_WINDOW_MS, RefusalTally } from './refusal-tally.js';
import { DEFAULT_MAX_BATCH, startDropCopyPipeline } from './pipeline.js';
import { defineDropCopySession, type DropCopySessionInstance } from './session.js';
import { sessionKeyOf } from './status.js';

export type DropCopyState = 'connecting' | 'logged_on' | 'logged_out' | 'disconnected' | 'stopped';

/** How often the holder checks its lock connection. */
export const LOCK_CHECK_MS = 1000;
/**
 * Messages not yet committed at which the session stops reading its socket: two batches (the one committing and
 * the next); it reads again once one is left. A fill read waits for at most about two batch commits; the rest of
 * a burst waits in the socket buffers (the exchange's). That moves the wait, it does not remove it: measured from
 * the exchange's SendingTime (52), a burst's fills wait as long as before (bench/dropcopy.ts reports both).
 */
export const HIGH_WATER = 2 * DEFAULT_MAX_BATCH;
/** How long a stop waits for the peer to confirm the logout. */
const LOGOUT_WAIT_MS = 2000;

export interface RunnerLog {
  info(msg: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export interface DropCopyRunnerOptions {
  sql: Sql;
  config: Config;
  log: RunnerLog;
  metrics?: DropCopyMetrics;
  /** How often a process not holding the session tries to take it (tests shorten it). */
  retryMs?: number;
  now?: () => Date;
  /** Told of each state change of the session this process runs (tests wait on it). */
  onState?: (state: DropCopyState) => void;
}

export interface DropCopyRunner {
  /** True while this process holds the session. */
  readonly holding: boolean;
  /** The acceptor's listening address, while it listens. */
  readonly address: net.AddressInfo | null;
  /** Logs out, commits what was received, records the session stopped and gives up the lock. */
  stop(): Promise<void>;
}

export function startDropCopyRunner(options: DropCopyRunnerOptions): DropCopyRunner {
  const d = options.config.dropCopy;
  if (!d) throw new Error('startDropCopyRunner needs config.dropCopy');
  const { sql, log } = options;
  const now = options.now ?? (() => new Date());
  const retryMs = options.retryMs ?? LEADER_RETRY_MS;
  const sessionKey = sessionKeyOf(d);
  const owner = `${os.hostname()}:${process.pid}`;
  const actor = `fix:${sessionKey}`;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  let held: Held | null = null;
  let lastStop: Promise<void> = Promise.resolve();
  /**
   * The pipeline of the session this process ran last: the refusals with no MsgSeqNum it did not record (no peer
   * resends them) are recorded by the next one, read when it starts (a batch the lost one still had in flight has
   * failed or committed by then: the new epoch fences it).
   */
  let previous: DropCopyPipeline | null = null;

  const tick = (): void => {
    timer = undefined;
    round = (held ? held.check() : attempt())
      .catch((err: unknown) => log.warn({ err }, 'FIX drop copy: an attempt to take the session failed; retrying'))
      .finally(() => {
        if (stopped) return;
        timer = setTimeout(tick, held ? LOCK_CHECK_MS : retryMs);
        timer.unref();
      });
  };

  const attempt = async (): Promise<void> => {
    // A session this process lost is wound down (its listener closed) before it stands again.
    await lastStop;
    const conn = await sql.reserve();
    let taken = false;
    try {
      taken = await tryAdvisoryLock(conn, ADVISORY_LOCKS.dropCopySession);
    } finally {
      if (!taken) conn.release();
    }
    if (!taken) return;
    try {
      held = await takeOver(conn);
    } catch (err) {
      log.error({ err }, 'FIX drop copy: starting the session failed; standing again');
      await conn`select pg_advisory_unlock(${ADVISORY_LOCKS.dropCopySession})`.catch(() => {});
      conn.release();
    }
  };

  /** Everything this process holds while it runs the session. */
  interface Held {
    check(): Promise<void>;
    stop(clean: boolean): Promise<void>;
    address(): net.AddressInfo | null;
  }

  const takeOver = async (conn: postgres.ReservedSql): Promise<Held> => {
    const [row] = await conn<Array<{ epoch: string; next_target_seq: number; next_sender_seq: number }>>`
      insert into dropcopy_sessions (session_key, role, state, epoch, owner)
      values (${sessionKey}, ${d.role}, 'connecting', 1, ${owner})
      on conflict (session_key) do update set epoch = dropcopy_sessions.epoch + 1, owner = excluded.owner, role = excluded.role,
        state = 'connecting', state_detail = null, updated_at = now()
      returning epoch, next_target_seq, next_sender_seq`;
    const epoch = Number(row!.epoch);
    log.info(`process ${process.pid} runs the FIX drop-copy session ${sessionKey} (epoch ${epoch}, ${d.role} on ${d.host}:${d.port})`);
    const rt = await loadFix();
    const policy = loadPolicy(options.config.policyPath);
    const tlsFiles = readTls(d);

    let halted = false;
    let fatal: ((err: unknown) => void) | null = null;
    const pipeline: DropCopyPipeline = startDropCopyPipeline({
      conn,
      sessionKey,
      epoch,
      nextTargetSeq: row!.next_target_seq,
      policy: () => policy,
      now,
      actor,
      comparison: comparisonSettings(options.config),
      ...(options.metrics ? { metrics: options.metrics } : {}),
      log,
      onFatal: (err) => fatal?.(err),
    });
    const carried = previous?.unrecorded() ?? [];
    previous = null;
    for (const r of carried) pipeline.reject(r);
    const store = new PgSessionStore(new rt.fix.SessionId('FIX.4.4', d.senderCompId, d.targetCompId), {
      conn,
      sessionKey,
      epoch,
      warn: (obj, msg) => log.warn(obj, msg),
    });

    /** The session row's state, fenced on the epoch (on the pool: never inside a pipeline transaction). */
    // One write at a time, in order: the pool would otherwise let a later state land before an earlier one.
    let stateWrites: Promise<unknown> = Promise.resolve();
    const setState = (next: DropCopyState, detail: string | null = null): void => {
      options.onState?.(next);
      options.metrics?.dropCopyLoggedOn.set(next === 'logged_on' ? 1 : 0);
      stateWrites = stateWrites
        .then(
          () => sql`update dropcopy_sessions set state = ${next}, state_detail = ${detail}, updated_at = now(),
          last_logon_at = case when ${next} = 'logged_on' then now() else last_logon_at end
        where session_key = ${sessionKey} and epoch = ${epoch}`,
        )
        .catch((err: unknown) => log.warn({ err }, 'FIX drop copy: recording the session state failed'));
    };
    const audit = (event: 'logon' | 'logout' | 'disconnect', reason?: string): void => {
      void sql
        .begin(async (tx) => {
          const [current] = await tx`select 1 from dropcopy_sessions where session_key = ${sessionKey} and epoch = ${epoch}`;
          if (!current) return;
          await appendAudit(tx, {
            actor,
            action: 'dropcopy.session',
            target_id: null,
            details: {
              session: sessionKey,
              event,
              epoch,
              owner,
              next_sender_seq: store.senderSeqNum,
              next_target_seq: store.targetSeqNum,
              ...(reason ? { reason } : {}),
            },
          });
        })
        .catch((err: unknown) => log.warn({ err }, 'FIX drop copy: auditing the session event failed'));
    };

    const logonTimeoutS = d.logonTimeoutS ?? DROPCOPY_LOGON_TIMEOUT_S;
    /**
     * A Logon refused (at the door, by the session, or unanswered): recorded and audited with the refused messages,
     * in full when it is the first of its address and kind in the window, else counted (refusal-tally.ts).
     */
    const tally = new RefusalTally();
    const refused = (r: RefusedConnection): void => {
      if (!tally.note(r.peer.slice(0, r.peer.lastIndexOf(':')), r.kind, now())) return;
      log.warn({ peer: r.peer, reason: r.reason }, 'FIX drop copy: a Logon was refused');
      pipeline.reject({
        seq: null,
        msgType: r.msgType,
        receivedAt: now(),
        answer: 'none',
        reasonCode: null,
        refTag: null,
        reason: `Logon refused (${r.peer}): ${r.reason}`,
        raw: r.raw,
      });
    };
    /** Each count of the window ending, one record (and audit entry) per address and kind. */
    const recordCounted = (): void => {
      for (const c of tally.drain()) {
        log.warn({ peer: c.address, kind: c.kind, count: c.count }, 'FIX drop copy: connections refused, counted');
        pipeline.reject({ seq: null, msgType: null, receivedAt: c.last, answer: 'none', reasonCode: null, refTag: null, reason: countedReason(c), raw: '' });
      }
    };
    const tallyTimer = setInterval(recordCounted, REFUSAL_WINDOW_MS);
    tallyTimer.unref();

    const fixConfig = await jspurefixConfig(rt, d, log);
    fixConfig.sessionStoreFactory = { create: () => store };
    const Session = defineDropCopySession(rt.fix);
    let session: DropCopySessionInstance | null = null;
    let transports = 0;
    /** What the state row says while the next connection logs on (the initiator's attempt). */
    let connecting: string | null = null;

    /** Runs one session on a connected socket until it ends: whether it logged on, and why it ended (if known). */
    const runOn = async (socket: net.Socket): Promise<{ loggedOn: boolean; why: string | null }> => {
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 30_000);
      const peer = `${socket.remoteAddress ?? d.host}:${socket.remotePort ?? d.port}`;
      // What was received on the last connection is committed first: the store starts from the watermark.
      await pipeline.flush();
      if (halted || socket.destroyed || socket.readyState !== 'open') {
        socket.destroy();
        return { loggedOn: false, why: 'the connection closed before the session started' };
      }
      const scoped = rt.makeSessionScope(fixConfig);
      const transport = new rt.fix.MsgTransport(++transports, scoped, new rt.fix.TcpDuplex(socket));
      let loggedOn = false;
      let why: string | null = null;
      let ended!: () => void;
      const over = new Promise<void>((resolve) => (ended = resolve));
      const current = new Session(scoped, {
        pipeline,
        now,
        highWater: HIGH_WATER,
        senderCompId: d.senderCompId,
        targetCompId: d.targetCompId,
        warn: (obj, msg) => log.warn(obj, msg),
        onLoggedOn: () => {
          loggedOn = true;
          setState('logged_on');
          audit('logon');
        },
        onLogonRefused: (text) => {
          why = `Logon refused with a Logout: ${text}`;
        },
        onStopped: (error) => {
          why ??= error?.message ?? null;
          ended();
          if (loggedOn) audit(error ? 'disconnect' : 'logout', error?.message);
          if (!halted) setState(error ? 'disconnected' : 'logged_out');
        },
      });
      session = current;
      setState('connecting', connecting);
      // A connection that closes under the session ends it, whatever state the FIX exchange had reached; the
      // session's end is taken from the session itself or the socket, whichever comes first (jspurefix's own
      // promise misses a connection that closes before the session subscribed to it).
      current.on('error', () => {});
      socket.once('close', () => {
        current.kill('the connection closed');
        ended();
      });
      // A Logon not exchanged within the timeout ends the connection: the initiator's unanswered, or (acceptor) one
      // that passed the door but that the session did not complete.
      const logonTimer = setTimeout(() => {
        if (loggedOn) return;
        why =
          d.role === 'initiator' ? `the exchange did not answer the Logon within ${logonTimeoutS} s` : `the Logon was not completed within ${logonTimeoutS} s`;
        refused({ peer, kind: 'logon_not_completed', msgType: null, reason: why, raw: '' });
        current.kill(why);
      }, logonTimeoutS * 1000);
      try {
        void current.run(transport).catch((err: unknown) => log.warn({ err }, `FIX drop copy: the session with ${d.targetCompId} ended`));
        await over;
      } finally {
        clearTimeout(logonTimer);
        if (session === current) session = null;
        socket.destroy();
      }
      return { loggedOn, why };
    };

    let wake: (() => void) | null = null;
    const pause = (ms: number): Promise<void> =>
      new Promise((resolve) => {
        const t = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });

    let server: net.Server | null = null;
    /** The acceptor's connections still at the door (logon-gate.ts): closed by a stop, which would wait for them. */
    const waiting = new Set<net.Socket>();
    let loop: Promise<void> = Promise.resolve();
    if (d.role === 'initiator') {
      const maxS = d.reconnectMaxS ?? Math.max(DROPCOPY_RECONNECT_MAX_S, d.reconnectS);
      loop = (async () => {
        /** Attempts failed in a row (a session that logged on counts as the first of a new row). */
        let failures = 0;
        while (!halted) {
          let outcome: { loggedOn: boolean; why: string | null };
          try {
            connecting = failures > 0 ? `attempt ${failures + 1} since the last logon` : null;
            if (connecting !== null) setState('connecting', connecting);
            const socket = await connect(d, tlsFiles);
            if (halted) {
              socket.destroy();
              break;
            }
            outcome = await runOn(socket);
          } catch (err) {
            outcome = { loggedOn: false, why: `connecting to ${d.host}:${d.port} failed: ${err instanceof Error ? err.message : String(err)}` };
          }
          if (halted) break;
          failures = outcome.loggedOn ? 1 : failures + 1;
          const waitMs = reconnectDelayMs(failures, d.reconnectS, maxS);
          const at = new Date(now().getTime() + waitMs).toISOString();
          const detail = `${outcome.loggedOn ? 'the session ended' : `attempt ${failures} failed`}${outcome.why ? ` (${outcome.why})` : ''}; next attempt in ${(waitMs / 1000).toFixed(1)} s, at ${at}`;
          setState(outcome.loggedOn && outcome.why === null ? 'logged_out' : 'disconnected', detail);
          log.warn({ failures, wait_ms: waitMs }, `FIX drop copy: ${detail}`);
          await pause(waitMs);
        }
      })();
    } else {
      let busy = false;
      const allow = allowListOf(d.allow);
      const parties = { senderCompId: d.senderCompId, targetCompId: d.targetCompId };
      /** False (the connection closed and recorded) when the peer's address is not allowed. */
      const admitted = (socket: net.Socket): boolean => {
        if (allow === null || isAllowed(allow, socket.remoteAddress)) return true;
        socket.destroy();
        refused({
          peer: peerOf(socket),
          kind: 'not_allowed',
          msgType: null,
          reason: 'the address is not in FIX_DROPCOPY_ALLOW; closed before a byte was read',
          raw: '',
        });
        return false;
      };
      const onSocket = (socket: net.Socket): void => {
        if (halted || socket.destroyed) {
          socket.destroy();
          return;
        }
        waiting.add(socket);
        void awaitLogon(socket, { parties, timeoutMs: logonTimeoutS * 1000, now, onRefused: refused }).then((passed) => {
          waiting.delete(socket);
          if (!passed) return;
          if (busy || halted) {
            refused({ peer: peerOf(socket), kind: 'session_running', msgType: 'A', reason: 'a session is running on another connection; closed', raw: '' });
            socket.destroy();
            return;
          }
          busy = true;
          loop = loop
            .then(() => runOn(socket))
            .then(
              () => {},
              () => {},
            )
            .finally(() => (busy = false));
        });
      };
      server = tlsFiles
        ? tls.createServer({ ...tlsFiles, requestCert: tlsFiles.ca !== undefined, rejectUnauthorized: tlsFiles.ca !== undefined }, onSocket)
        : net.createServer();
      // Every TCP connection is counted against the caps first (over one, closed at once), then its address is
      // checked; a TLS listener is told of the TCP connection before its handshake, so both come before it.
      const caps = {
        maxConnections: d.maxConnections ?? DROPCOPY_MAX_CONNECTIONS,
        perAddress: d.maxConnectionsPerAddress ?? DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS,
        exempt: null,
      };
      const capped = server;
      capConnections(capped, caps, (cap, address) => {
        refused({
          peer: `${address}:?`,
          kind: 'over_cap',
          msgType: null,
          raw: '',
          reason:
            cap === 'server_cap'
              ? `${caps.maxConnections} connections are open already (FIX_DROPCOPY_MAX_CONNECTIONS); closed before a byte was read`
              : `${caps.perAddress} connections from this address are open already (FIX_DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS); closed before a byte was read`,
        });
      });
      server.on('connection', (socket: net.Socket) => {
        if (socket.destroyed || !admitted(socket) || tlsFiles) return;
        onSocket(socket);
      });
      server.on('error', (err) => log.error({ err }, 'FIX drop copy: the listener failed'));
      const listening = server;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen({ port: d.port, host: d.host }, () => {
          listening.off('error', reject);
          resolve();
        });
      }).catch(async (err: unknown) => {
        clearInterval(tallyTimer);
        await pipeline.stop().catch(() => {});
        throw err;
      });
      setState('connecting');
    }

    let stopping: Promise<void> | null = null;
    const stop = (clean: boolean): Promise<void> =>
      (stopping ??= (async () => {
        halted = true;
        clearInterval(tallyTimer);
        wake?.();
        const listening = server;
        const closed = listening ? new Promise<void>((resolve) => listening.close(() => resolve())) : Promise.resolve();
        for (const socket of waiting) socket.destroy();
        if (clean) await session?.logout('tradeseal stops', LOGOUT_WAIT_MS);
        else session?.kill('the FIX drop-copy session was lost by this process');
        await loop.catch(() => {});
        await closed;
        // The counts of the window not ended: recorded now (or, when the pipeline failed, kept for the next start).
        recordCounted();
        if (clean) {
          await pipeline.stop().catch((err: unknown) => log.error({ err }, 'FIX drop copy: committing the last messages failed'));
          await store.flush().catch((err: unknown) => log.warn({ err }, 'FIX drop copy: recording the next outbound sequence number failed'));
          options.onState?.('stopped');
          options.metrics?.dropCopyLoggedOn.set(0);
          await stateWrites;
          await sql`update dropcopy_sessions set state = 'stopped', updated_at = now() where session_key = ${sessionKey} and epoch = ${epoch}`.catch(
            (err: unknown) => log.warn({ err }, 'FIX drop copy: recording the session state failed'),
          );
          await conn`select pg_advisory_unlock(${ADVISORY_LOCKS.dropCopySession})`.catch(() => {});
        } else {
          // The connection is gone or fenced: nothing queued can commit, and waiting on it could wait forever.
          void pipeline.stop().catch(() => {});
          options.metrics?.dropCopyLoggedOn.set(0);
        }
        previous = pipeline;
        const kept = pipeline.unrecorded();
        if (kept.length > 0)
          log.warn(
            { refusals: kept.length, reasons: kept.slice(0, 10).map((r) => r.reason) },
            'FIX drop copy: refusals not recorded when the session stopped; recorded at its next start here',
          );
        conn.release();
      })());

    const lose = (why: string, err: unknown): void => {
      if (halted) return;
      log.error({ err }, `FIX drop copy: ${why}; the session stops at once and this process stands again`);
      held = null;
      lastStop = stop(false);
    };
    fatal = (err) => lose('applying received messages failed or another process took the session', err);

    return {
      check: async () => {
        try {
          await conn`select 1`;
        } catch (err) {
          lose('the connection holding the session was lost', err);
        }
      },
      stop,
      address: () => (server?.address() as net.AddressInfo | null) ?? null,
    };
  };

  tick();
  return {
    get holding() {
      return held !== null;
    },
    get address() {
      return held?.address() ?? null;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      await round;
      const h = held;
      held = null;
      await h?.stop(true);
    },
  };
}

/** The PEM files of FIX_DROPCOPY_TLS_*, read now (jspurefix would resolve the paths inside its own package). */
function readTls(d: DropCopyConfig): { cert?: string; key?: string; ca?: string } | null {
  if (!d.tls) return null;
  const read = (file: string | null): string | undefined => (file === null ? undefined : fs.readFileSync(file, 'utf8'));
  const out: { cert?: string; key?: string; ca?: string } = {};
  const cert = read(d.tls.cert);
  const key = read(d.tls.key);
  const ca = read(d.tls.ca);
  if (cert !== undefined) out.cert = cert;
  if (key !== undefined) out.key = key;
  if (ca !== undefined) out.ca = ca;
  return out;
}

/** A connection's peer as `address:port`. */
const peerOf = (socket: net.Socket): string => `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;

/** Connects to the exchange (TLS when configured), within the heartbeat interval. */
function connect(d: DropCopyConfig, files: ReturnType<typeof readTls>): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = files
      ? tls.connect({ host: d.host, port: d.port, ...files, ...(net.isIP(d.host) ? {} : { servername: d.host }) })
      : net.connect({ host: d.host, port: d.port });
    const timer = setTimeout(() => socket.destroy(new Error(`no connection within ${d.heartbeatS} s`)), d.heartbeatS * 1000);
    socket.once(files ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** jspurefix's configuration of the session (no files: the description is built here), its logs bridged at warn. */
async function jspurefixConfig(rt: FixRuntime, d: DropCopyConfig, log: RunnerLog): Promise<IJsFixConfig> {
  const quiet = (name: string) => ({
    info: () => {},
    debug: () => {},
    warning: (message: string, fields?: Record<string, unknown>) => log.warn({ fix: name, ...fields }, message),
    error: (e: Error, fields?: Record<string, unknown>) => log.warn({ fix: name, err: e, ...fields }, e.message),
  });
  const logFactory = { logger: quiet, plain: quiet } as unknown as JsFixLoggerFactory;
  const description = {
    Name: `tradeseal-dropcopy-${randomUUID().slice(0, 8)}`,
    application: {
      name: 'tradeseal-dropcopy',
      type: d.role,
      protocol: 'ascii',
      dictionary: 'qf44',
      resilient: false,
      reconnectSeconds: d.reconnectS,
      tcp: { host: d.host, port: d.port },
    },
    BeginString: 'FIX.4.4',
    SenderCompId: d.senderCompId,
    TargetCompID: d.targetCompId,
    HeartBtInt: d.heartbeatS,
    ResetSeqNumFlag: false,
    Username: '',
    Password: '',
    SenderSubID: '',
    TargetSubID: '',
  } as unknown as ISessionDescription;
  const container = new rt.fix.SessionContainer();
  container.registerGlobal(logFactory);
  const child = await container.makeSystem(description);
  return child.resolve<IJsFixConfig>(rt.fix.DITokens.IJsFixConfig);
}
