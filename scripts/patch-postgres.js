#!/usr/bin/env node
// Repairs postgres.js 3.4.9 (the store driver) where a connection that dies mid-transaction crashes the process
// or poisons the pool, run after every install (`postinstall`). Idempotent; refuses loudly when the driver's
// source is not the one these repairs were written for, so a driver upgrade cannot skip them silently.
//
// The faults (porsager/postgres issues #1066, #1154 and #1208, unfixed in 3.4.9):
// 1. A query sent on a reserved or transaction handle after its connection closed (the ROLLBACK that `begin()`
//    itself issues when a statement fails because the server went away) is written on the next tick to a
//    socket that is already null: an uncatchable TypeError ends the process.
// 2. Closing a connection cancels its pending write but leaves the write timer set, so that connection never
//    flushes again: each later use of it (its startup message too) waits for the connect timeout and fails.
// 3. Releasing a reserved connection after it closed puts the dead connection back among the open ones.
// The repairs: a connection counts its sessions (`generation`, one more at each close); a reserved or
// transaction handle is bound to the session it began on and rejects its queries with CONNECTION_CLOSED once
// that session has ended (and its release no longer touches the pool); closing clears the write state; a write
// to a closed socket is dropped instead of throwing (its queries were already rejected by the close).
// test/reliability/driver-faults.test.ts holds each of them.
//
// 4. The driver's queue of connections (src/queue.js) never shrinks while it is not empty: `shift` leaves a
//    hole and `remove` searches from the first slot ever used, so in a pool that always has an idle connection
//    (any pool larger than its load) every query scans one more slot than the one before: 54 µs a query after
//    40,000 queries, 180 µs after 240,000 (test/reliability/driver-queue.test.ts shows the scan grow), so
//    a server slows down for as long as it runs. The repair searches from the queue's head and drops the holes
//    once they are more than half the array (amortized O(1), the order and the answers unchanged).
//
// 5. A new connection looks up the server's array types before its first query (`fetch_types`), and the
//    lookup's promise is dropped (porsager/postgres#1192, #1205 and #1223; first seen as #279): when the store
//    closes the connection during the lookup (a restart's 57P01, a reset, a refused reconnect) or cancels it, the
//    rejection is unhandled and Node ends the process. Worse, a connection closed during the lookup reconnects
//    with the dead session's lookup still pending, and the new session's first query fails with the old error.
//    The repair: the lookup's failure is the session's, never unhandled. It fails the connection's pending first
//    query with the lookup's error (a store fault, so the request is answered 503), and the connection ends
//    instead of being handed to the pool without the types (its arrays would arrive as text); the pool opens
//    another. `fetch_types: false` is no way out: tradeseal reads and writes arrays (double precision[], text[],
//    uuid[], timestamptz[]), which the driver then parses only for the types it is told of, and a cold pool's
//    `reserve()` never settles without the lookup (porsager/postgres#1219).
//    test/reliability/driver-types.test.ts holds it, test/reliability/store-flap.test.ts shows it under load.
// 6. A `reserve()` that waits for a connection (every one busy) is lost when the connection that closes next is
//    opened again for it (porsager/postgres#1195): the pool takes it off its queue to open the connection, and
//    the connection hands a reserve back only through that queue. It never settles, and a leader election
//    waiting on it never runs again nor stops (a worker's drain then hangs). Unrepaired, 3.4.9 hides it behind
//    the FATAL of the connection's previous session, replayed onto the reserve (the repairs above drop that
//    replay: nothing of an ended session carries over). And a reserve whose
//    connection attempt fails is rejected but stays queued: the next connection to open is handed to it and is
//    lost to the pool. The repair: a waiting reserve stays on the queue while a connection opens for it, and
//    leaves it when it is rejected.
// 7. Ending a connection (`sql.end()`, its timeout) leaves a reconnection already scheduled in place: the
//    connection opens again after the pool has ended, and stays open, so the process never exits (no upstream
//    issue found; the LISTEN connection of src/store/listener.ts met it after a store outage). The repair:
//    ending a connection cancels its scheduled reconnection.
//    test/reliability/driver-faults.test.ts holds both.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const driver = path.join(root, 'node_modules', 'postgres');
const MARKER = '/* tradeseal: driver repairs */';
const EXPECTED_VERSION = '3.4.9';

const CONNECTION = [
  ['    count: 0,\n    id\n  }', '    count: 0,\n    generation: 0,\n    id\n  }'],
  ['  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)',
    '  function nextWrite(fn) {\n    if (!socket) {\n      nextWriteTimer !== null && clearImmediate(nextWriteTimer)\n      chunk = nextWriteTimer = null\n      return false\n    }\n    const x = socket.write(chunk, fn)'],
  ['    clearImmediate(nextWriteTimer)\n    if (socket) {', '    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    if (socket) {'],
  ['  async function closed(hadError) {\n    incoming = Buffer.alloc(0)', '  async function closed(hadError) {\n    connection.generation++\n    incoming = Buffer.alloc(0)'],
  ['    clearImmediate(nextWriteTimer)\n    socket.removeListener(\'data\', data)\n    socket.removeListener(\'connect\', connected)\n    idleTimer.cancel()',
    '    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    socket.removeListener(\'data\', data)\n    socket.removeListener(\'connect\', connected)\n    idleTimer.cancel()'],
  // Nothing of the ended session carries over: its query was rejected above, and its error (a FATAL such as
  // 57P01) must not fail the first query of the next session on this connection.
  ['    !hadError && (query || sent.length) && error(Errors.connection(\'CONNECTION_CLOSED\', options, socket))\n',
    '    !hadError && (query || sent.length) && error(Errors.connection(\'CONNECTION_CLOSED\', options, socket))\n    query = results = errorResponse = null\n'],
  // Repair 5: the array-type lookup (`typeLookup` while it runs; `typesError` once it failed) belongs to its session.
  ['    , needsTypes = options.fetch_types\n', '    , needsTypes = options.fetch_types\n    , typeLookup = null\n    , typesError = null\n'],
  ['      needsTypes = options.fetch_types\n      statementId', '      needsTypes = options.fetch_types\n      typeLookup = typesError = null\n      statementId'],
  // A connection closed during the lookup is a session that ended, not a connection attempt to make again: the
  // lookup and the first query fail with CONNECTION_CLOSED (the line after this one) and the pool takes over.
  ['    if (initial)\n      return reconnect()\n', '    if (initial && !typeLookup)\n      return reconnect()\n'],
  // The lookup failed on a session that goes on (an error answered, 57014): its first query failed with that
  // error already (`errored`); the connection ends rather than serve without the types.
  ['    connectTimer.cancel()\n\n    if (initial) {\n', '    connectTimer.cancel()\n\n    if (typesError)\n      return terminate()\n\n    if (initial) {\n'],
  // Repair 7: a scheduled reconnection is cancelled when the connection ends.
  ['    , nextWriteTimer = null\n', '    , nextWriteTimer = null\n    , reconnectTimer = null\n'],
  ['  function reconnect() {\n    setTimeout(connect,', '  function reconnect() {\n    reconnectTimer = setTimeout(connect,'],
  ['  function terminate() {\n    terminated = true\n', '  function terminate() {\n    terminated = true\n    clearTimeout(reconnectTimer)\n'],
  ['    needsTypes = false\n    const types = await new Query([`',
    '    needsTypes = false\n    const lookup = typeLookup = new Query([`'],
  ['    `], [], execute)\n    types.forEach(({ oid, typarray }) => addArrayType(oid, typarray))\n',
    '    `], [], execute)\n    const { resolve, reject } = lookup\n    lookup.resolve = x => (typeLookup = null, resolve(x))\n    lookup.reject = x => (typeLookup = null, typesError = x, reject(x))\n    const types = await lookup.catch(() => null)\n    types && types.forEach(({ oid, typarray }) => addArrayType(oid, typarray))\n'],
];

const INDEX = [
  // reserve(): the handle belongs to the session it was reserved on.
  ['    move(c, reserved)\n    c.reserved = () => queue.length', '    const generation = c.generation\n    move(c, reserved)\n    c.reserved = () => queue.length'],
  ['    sql.release = () => {\n      c.reserved = null', '    sql.release = () => {\n      if (c.generation !== generation)\n        return\n      c.reserved = null'],
  ['    function handler(q) {\n      c.queue === full\n        ? queue.push(q)',
    '    function handler(q) {\n      if (c.generation !== generation)\n        return q.reject(Errors.connection(\'CONNECTION_CLOSED\', options))\n      c.queue === full\n        ? queue.push(q)'],
  // begin(): so does the transaction, its ROLLBACK included.
  ['    let savepoints = 0\n      , connection\n', '    let savepoints = 0\n      , generation\n      , connection\n'],
  ['    function onexecute(c) {\n      connection = c\n', '    function onexecute(c) {\n      connection = c\n      generation = c.generation\n'],
  ['        q.catch(e => uncaughtError || (uncaughtError = e))\n        c.queue === full',
    '        q.catch(e => uncaughtError || (uncaughtError = e))\n        if (c.generation !== generation)\n          return q.reject(Errors.connection(\'CONNECTION_CLOSED\', options))\n        c.queue === full'],
  // Repair 6: a waiting reserve leaves the queue when it is rejected, and stays on it while a connection opens for it.
  ['        const query = { reserve: resolve, reject }\n', '        const query = { reserve: resolve, reject: e => (queries.remove(query), reject(e)) }\n'],
  ['    queries.length && connect(c, queries.shift())\n  }', '    queries.length && connect(c, queries.peek().reserve ? queries.peek() : queries.shift())\n  }'],
];

/** Repairs 4 and 6, for queue.js in either module format (its first line differs). */
function queueRepair(exported) {
  return [
    // Unchanged: it only checks that the file is the module format it is taken for.
    [`${exported}\n`, `${exported}\n`],
    ['    remove: (x) => {\n      const index = xs.indexOf(x)\n      return index === -1\n        ? null\n        : (xs.splice(index, 1), x)\n    },',
      '    remove: (x) => {\n      const at = xs.indexOf(x, index)\n      return at === -1\n        ? null\n        : (xs.splice(at, 1), x)\n    },'],
    ['    push: (x) => (xs.push(x), x),\n', '    push: (x) => (xs.push(x), x),\n    peek: () => xs[index],\n'],
    ['      if (index === xs.length) {\n        index = 0\n        xs = []\n      } else {\n        xs[index - 1] = undefined\n      }',
      '      if (index === xs.length) {\n        index = 0\n        xs = []\n      } else if (index >= 64 && index * 2 >= xs.length) {\n        xs = xs.slice(index)\n        index = 0\n      } else {\n        xs[index - 1] = undefined\n      }'],
  ];
}

/** Repairs `file` from its original (kept beside it as `.orig` the first time), so that a changed repair applies too. */
function patch(file, edits) {
  const original = `${file}.orig`;
  if (!existsSync(original)) {
    const text = readFileSync(file, 'utf8');
    if (text.startsWith(MARKER)) throw new Error(`${path.relative(root, file)} is repaired but its original is gone: reinstall postgres`);
    writeFileSync(original, text);
  }
  let out = readFileSync(original, 'utf8');
  for (const [from, to] of edits) {
    const at = out.indexOf(from);
    if (at < 0 || out.indexOf(from, at + from.length) >= 0) {
      throw new Error(`${path.relative(root, file)}: the text to repair was not found exactly once:\n${from}`);
    }
    out = out.replace(from, () => to);
  }
  out = `${MARKER}\n${out}`;
  if (readFileSync(file, 'utf8') === out) return false;
  writeFileSync(file, out);
  return true;
}

if (!existsSync(driver)) process.exit(0); // installed without the driver (nothing to repair)
const { version } = JSON.parse(readFileSync(path.join(driver, 'package.json'), 'utf8'));
if (version !== EXPECTED_VERSION) {
  console.error(`scripts/patch-postgres.js: postgres ${version} is installed, the repairs are for ${EXPECTED_VERSION}: check whether it fixes porsager/postgres#1208 and #1192 and update or remove this script`);
  process.exit(1);
}
let changed = 0;
for (const dir of ['src', 'cjs/src']) {
  if (patch(path.join(driver, dir, 'connection.js'), CONNECTION)) changed++;
  if (patch(path.join(driver, dir, 'index.js'), INDEX)) changed++;
}
for (const [dir, exported] of [['src', 'export default Queue'], ['cjs/src', 'module.exports = Queue']]) {
  if (patch(path.join(driver, dir, 'queue.js'), queueRepair(exported))) changed++;
}
if (changed > 0) console.error(`scripts/patch-postgres.js: repaired ${changed} file(s) of postgres ${version}`);
