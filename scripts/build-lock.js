// Builds of one checkout take turns. The lock is a directory, node_modules/.cache/tradeseal-build.lock, made with
// mkdir (which fails when it exists: one maker wins), holding the pid of the build that holds it. A build that
// finds it waits, saying so once, until it is gone, for at most 10 minutes. A lock whose process is dead (a build
// killed half-way), or that names this very process (a container restarted with the same pids), or one left
// without a pid for 10 s, is moved aside under a name of the mover's own and removed, and the build goes on. Two
// movers may both judge one lock stale; the second then finds in what it moved a pid other than the one it judged,
// puts it back when the path is free, and waits. The holder removes the lock when it ends, also on SIGINT/SIGTERM.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const WAIT_MS = 10 * 60_000;

const alive = (pid) => {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};

/** The pid in a lock directory; 0 when it has none yet; null when the directory is gone. */
function pidIn(dir) {
  try {
    return Number(readFileSync(path.join(dir, 'pid'), 'utf8')) || 0;
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
    try {
      statSync(dir);
      return 0;
    } catch {
      return null;
    }
  }
}

/** Moves a stale lock aside and removes it, unless what was moved is not the lock judged stale. */
function breakStale(lock, judged) {
  const aside = `${lock}.${process.pid}.stale`;
  try {
    renameSync(lock, aside);
  } catch {
    return; // Another build moved it first.
  }
  if (pidIn(aside) !== judged) {
    try {
      renameSync(aside, lock);
    } catch {
      rmSync(aside, { recursive: true, force: true });
    }
    return;
  }
  rmSync(aside, { recursive: true, force: true });
}

/** Runs `fn` holding the build lock of the checkout at `root`. */
export async function withBuildLock(root, fn) {
  const cache = path.join(root, 'node_modules', '.cache');
  const lock = path.join(cache, 'tradeseal-build.lock');
  mkdirSync(cache, { recursive: true });
  const deadline = Date.now() + WAIT_MS;
  let told = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const pid = pidIn(lock);
    if (pid === null) continue; // Released meanwhile.
    let orphan = false;
    try {
      orphan = pid === 0 && Date.now() - statSync(lock).mtimeMs > 10_000;
    } catch {
      continue;
    }
    if ((pid > 0 && !alive(pid)) || orphan) {
      breakStale(lock, pid);
      continue;
    }
    if (Date.now() > deadline) throw new Error(`another build of this checkout (process ${pid}) held ${lock} for 10 minutes; if none runs, remove it`);
    if (!told) process.stderr.write(`  waiting for another build of this checkout${pid > 0 ? ` (process ${pid})` : ''}…\n`);
    told = true;
    await sleep(200);
  }
  const release = () => rmSync(lock, { recursive: true, force: true });
  const onSignal = (signal) => {
    release();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await fn();
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    release();
  }
}
