// Builds of one checkout take turns. The lock is a directory, node_modules/.cache/tradeseal-build.lock, made with
// mkdir (which fails when it exists: one maker wins), holding the pid of the build that holds it. A build that
// finds it waits, saying so once, until it is gone. A lock whose process is dead (a build killed half-way) is
// moved aside (as is one left without a pid for 10 s) under a name of the mover's own (rename: one mover wins) and removed, and the build goes on.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};

/** Runs `fn` holding the build lock of the checkout at `root`. */
export async function withBuildLock(root, fn) {
  const cache = path.join(root, 'node_modules', '.cache');
  const lock = path.join(cache, 'tradeseal-build.lock');
  mkdirSync(cache, { recursive: true });
  let told = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const pid = Number(readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }));
    // No pid 10 s after the lock was made: its maker died between the two steps.
    const orphan = !(pid > 0) && Date.now() - statSync(lock).mtimeMs > 10_000;
    if ((pid > 0 && !alive(pid)) || orphan) {
      const aside = `${lock}.${process.pid}.stale`;
      try {
        renameSync(lock, aside);
        rmSync(aside, { recursive: true, force: true });
      } catch {
        // Another build moved it first.
      }
      continue;
    }
    if (!told) process.stderr.write(`  waiting for another build of this checkout${pid > 0 ? ` (process ${pid})` : ''}…\n`);
    told = true;
    await sleep(200);
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
