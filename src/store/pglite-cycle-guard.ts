/**
 * Keeps each client's request cycle exclusive when several sockets share one PGlite through pglite-socket.
 *
 * PGlite is a single Postgres session. pglite-socket 0.2.17 multiplexes many client sockets onto it with a
 * queue of *protocol messages*, and only keeps one client's messages together while the session is inside an
 * explicit transaction (`isInTransaction()`). Outside one, the extended query protocol of two clients
 * interleaves: A's Parse, B's Parse, A's Bind, B's Bind, A's Execute... Both clients bind to the same unnamed
 * statement or portal, so A can receive B's rows. We measured it: 3 postgres.js pools running 3000 concurrent
 * parameterised selects got 748 wrong answers and no error. With `prepare: false` it also fails with
 * "bind message supplies 2 parameters, but prepared statement "" requires 0".
 *
 * The fix without forking pglite-socket: hand its server a view of the PGlite whose `isInTransaction()` also
 * answers true while a request cycle is open, i.e. from a client's first message until the backend sends
 * ReadyForQuery with status Idle. The queue then serves only that client until its cycle completes, exactly as
 * it already does for transactions. Its disconnect path calls `exec('ROLLBACK')` on this view, which here
 * first ends a half-sent extended-protocol cycle with a Sync, so a client that vanishes mid-cycle cannot
 * wedge the queue.
 *
 * What remains, and why. pglite-socket has no public way to get this exclusivity: no option, hook or per-cycle
 * scheduling in 0.2.17 or in 0.2.18, the newest release (whose sources are 0.2.17's), and its queue
 * (`QueryQueueManager`) is not exported. The interleaving is electric-sql/pglite#1046 (open; PR #977, which
 * pins a client until ReadyForQuery, is not merged). So the view remains, reduced to what the server uses: the
 * five members its sources call on `db` (`waitReady` and `runExclusive` passed through; `isInTransaction`,
 * `execProtocolRawStream` and `exec` as above), and nothing else of the PGlite, so a release that calls
 * another member fails at once instead of bypassing the guard. `test/store/embedded-server.test.ts` checks
 * the installed pglite-socket against that list and the behaviour the guard gives. To drop the guard: a
 * release that fixes #1046, then that test without it (docs/design.md, "Design choices").
 */
import type { PGlite } from '@electric-sql/pglite';

/** Frontend message type bytes. */
const TERMINATE = 0x58; // 'X'
/** Backend message type byte of ReadyForQuery, and its transaction status byte when idle. */
const READY_FOR_QUERY = 0x5a; // 'Z'
const STATUS_IDLE = 0x49; // 'I'
/** A Sync message: type 'S', length 4. Ends an extended-protocol cycle and makes the backend answer RFQ. */
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

/**
 * Follows the framing of a backend message stream (type byte, int32 length, body) across arbitrary chunk
 * boundaries and remembers the status byte of the last ReadyForQuery. Framing, rather than searching for
 * the bytes `Z\0\0\0\x05`, so that row data can never be mistaken for the end of a cycle.
 */
export class ReadyForQueryWatcher {
  private readonly header = new Uint8Array(5);
  private headerLength = 0;
  private bodyLeft = 0;
  private type = 0;
  /** Status byte (`I`, `T` or `E`) of the last ReadyForQuery seen, or null if none. */
  lastStatus: number | null = null;

  push(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.bodyLeft === 0) {
        this.header[this.headerLength++] = chunk[i++]!;
        if (this.headerLength === 5) {
          this.type = this.header[0]!;
          const length = ((this.header[1]! << 24) | (this.header[2]! << 16) | (this.header[3]! << 8) | this.header[4]!) >>> 0;
          this.bodyLeft = length - 4;
          this.headerLength = 0;
        }
        continue;
      }
      const take = Math.min(this.bodyLeft, chunk.length - i);
      // ReadyForQuery's body is exactly its one status byte.
      if (this.type === READY_FOR_QUERY) this.lastStatus = chunk[i]!;
      i += take;
      this.bodyLeft -= take;
    }
  }
}

/** The members of a PGlite that pglite-socket's server calls on its `db`: all the guarded view has. */
export const SOCKET_SERVER_MEMBERS = ['waitReady', 'runExclusive', 'isInTransaction', 'execProtocolRawStream', 'exec'] as const;
type SocketServerDb = Pick<PGlite, (typeof SOCKET_SERVER_MEMBERS)[number]>;

/** Returns a view of `db` for `PGLiteSocketServer` that keeps request cycles whole. */
export function guardRequestCycles(db: PGlite): PGlite {
  // True from a cycle's first message until ReadyForQuery(Idle). Belongs to the queue's last client.
  let cycleOpen = false;

  const isInTransaction = (): boolean => cycleOpen || db.isInTransaction();

  const execProtocolRawStream: PGlite['execProtocolRawStream'] = async (message, options) => {
    const watcher = new ReadyForQueryWatcher();
    await db.execProtocolRawStream(message, {
      ...options,
      onRawData: (data) => {
        watcher.push(data);
        options.onRawData(data);
      },
    });
    // Terminate ends the socket, not a cycle; it gets no answer and must not open one.
    if (message[0] !== TERMINATE) cycleOpen = watcher.lastStatus !== STATUS_IDLE;
  };

  const exec: PGlite['exec'] = async (query, options) => {
    if (cycleOpen) {
      // Called by the queue (its ROLLBACK) when the cycle's client disconnected: finish its half-sent cycle
      // first, since after an error the backend ignores everything but Sync. Outside a transaction the ROLLBACK
      // then changes nothing.
      await db.execProtocolRaw(SYNC);
      cycleOpen = false;
    }
    return db.exec(query, options);
  };

  const view: SocketServerDb = {
    // PGlite keeps its state in private fields, so its methods run with the real instance as `this`.
    get waitReady() {
      return db.waitReady;
    },
    runExclusive: db.runExclusive.bind(db),
    isInTransaction,
    execProtocolRawStream,
    exec,
  };
  // The server's option is typed as a whole PGlite; it calls only these members (SOCKET_SERVER_MEMBERS).
  return view as unknown as PGlite;
}
