/**
 * Builds the QuickFIX/C++ exchange peer (./exchange.cpp) against Debian's libquickfix-dev, once per source:
 * the binary is cached under the temporary directory by a hash of the source and the compiler command, so a
 * run after the first costs a hash. Called by the test setup (test/setup/quickfix-peer.ts).
 *
 * When the headers are missing it installs the package if it can (root with apt-get, as in CI's containers);
 * otherwise it fails with a message naming the package. The end-to-end drop-copy tests need a FIX engine
 * other than our own, so they never skip.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SOURCE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'exchange.cpp');
const HEADERS = '/usr/include/quickfix/Application.h';
export const QUICKFIX_PACKAGE = 'libquickfix-dev';

/**
 * C++14, not 17: Debian's 1.15.1 headers use dynamic exception specifications. HAVE_SSL: Debian builds the
 * library with OpenSSL (its SSL socket classes are exported), which the peer uses when its settings say SSL=Y.
 */
const FLAGS = ['-std=c++14', '-O1', '-Wno-deprecated', '-DHAVE_SSL=1'];
const LIBS = ['-lquickfix', '-lpthread', '-lssl', '-lcrypto'];

/** The path of the built peer, compiling it if this source has not been compiled before. */
export async function buildExchangePeer(cacheRoot = path.join(os.tmpdir(), 'tradeseal-quickfix-peer')): Promise<string> {
  const source = await readFile(SOURCE);
  const key = createHash('sha256')
    .update(source)
    .update(JSON.stringify([FLAGS, LIBS]))
    .digest('hex')
    .slice(0, 16);
  const binary = path.join(cacheRoot, key, 'exchange');
  if (existsSync(binary)) return binary;
  await ensureHeaders();
  await mkdir(path.dirname(binary), { recursive: true });
  // Compiled to a private name and renamed: two test projects may build at once.
  const partial = `${binary}.${process.pid}.${Date.now()}`;
  try {
    await run('g++', [...FLAGS, '-o', partial, SOURCE, ...LIBS], { maxBuffer: 16 << 20 });
    await rename(partial, binary);
  } catch (error) {
    await rm(partial, { force: true });
    const e = error as { stderr?: string; message: string };
    throw new Error(`building the QuickFIX exchange peer failed: ${e.stderr?.slice(0, 4000) || e.message}`);
  }
  return binary;
}

async function ensureHeaders(): Promise<void> {
  if (existsSync(HEADERS)) return;
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    throw new Error(
      `the FIX drop-copy tests need QuickFIX/C++: install Debian's ${QUICKFIX_PACKAGE} (apt-get install ${QUICKFIX_PACKAGE}); ${HEADERS} is missing`,
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    await run('apt-get', ['update'], { env, maxBuffer: 64 << 20 });
    await run('apt-get', ['install', '-y', '--no-install-recommends', QUICKFIX_PACKAGE], { env, maxBuffer: 64 << 20 });
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`installing ${QUICKFIX_PACKAGE} with apt-get failed: ${e.stderr?.slice(-2000) || e.message}`);
  }
  if (!existsSync(HEADERS)) throw new Error(`${QUICKFIX_PACKAGE} was installed but ${HEADERS} is still missing`);
}
