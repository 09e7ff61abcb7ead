/**
 * The embedded store: a file-backed PGlite under `<home>/pgdata`, opened by at most one process at a time.
 *
 * The process that claims `<home>/embedded.json` (see `embedded-owner.ts`) opens the directory and serves it
 * on a loopback port; every other process connects to that port. Either way the caller gets a postgres.js
 * handle, so no code outside this directory knows which one it has. A new store is a copy of the build's image of
 * an empty cluster when there is one (`embedded-image.ts`), else PGlite's initdb.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { TradesealError } from '../core/errors.js';
import { fileError } from '../core/file-errors.js';
import { connect, type ConnectOptions, type Sql } from './driver.js';
import { copyStoreImage, storeImageDir } from './embedded-image.js';
import { claimEmbeddedStore, type ClaimOptions } from './embedded-owner.js';
import { embeddedUrl, serveEmbedded } from './embedded-server.js';

export interface EmbeddedHandle {
  sql: Sql;
  url: string;
  /** Whether this open made the store: `<home>/pgdata` held none (a new or mistyped TRADESEAL_HOME). */
  created: boolean;
  close(): Promise<void>;
}

/** How long `close()` lets running queries finish before it drops the connections. */
const END_TIMEOUT_SECONDS = 5;

export interface ImageOptions {
  /** The image a new store is copied from (./embedded-image.ts); default the build's, null for initdb. */
  image?: string | null;
}

export async function openEmbeddedStore(home: string, options: ConnectOptions & ClaimOptions & ImageOptions = {}): Promise<EmbeddedHandle> {
  // A TRADESEAL_HOME that is a file, or in a directory this user cannot write, is a setting to correct.
  const claim = await claimEmbeddedStore(home, options).catch((error: unknown) => {
    throw fileError(error, {
      field: 'TRADESEAL_HOME',
      file: home,
      action: 'write',
      code: 'config_invalid',
      hint: 'point TRADESEAL_HOME at a directory this user can write to (or set DATABASE_URL)',
    });
  });
  if (claim.role === 'client') {
    const url = embeddedUrl(claim.port);
    const sql = connect(url, options);
    // The owner opened the store (and made it, if new): its process says so, not this one.
    return { sql, url, created: false, close: once(() => sql.end({ timeout: END_TIMEOUT_SECONDS })) };
  }

  let db: PGlite | undefined;
  try {
    const dataDir = path.join(home, 'pgdata');
    // A PostgreSQL data directory always holds PG_VERSION; without it PGlite makes a new, empty store.
    const created = !existsSync(path.join(dataDir, 'PG_VERSION'));
    const copied = created && copyStoreImage(dataDir, options.image === undefined ? buildImage() : options.image);
    db = await PGlite.create({ dataDir }).catch(async (error: unknown) => {
      if (!copied) throw error;
      // A copy PGlite cannot open (an image cut short) is no store yet: it goes, and initdb makes one.
      await rm(dataDir, { recursive: true, force: true });
      return PGlite.create({ dataDir });
    });
    const server = await serveEmbedded(db);
    await claim.publish(server.port);
    const sql = connect(server.url, options);
    const opened = db;
    return {
      sql,
      url: server.url,
      created,
      // Clients first (so their sessions end cleanly), then the socket, then PGlite, which flushes its files,
      // and only then the owner file: a process that finds no file may open the directory at once.
      close: once(async () => {
        await sql.end({ timeout: END_TIMEOUT_SECONDS });
        await server.stop();
        await opened.close();
        await claim.release();
      }),
    };
  } catch (error) {
    await db?.close().catch(() => {});
    await claim.release();
    throw new TradesealError('store_error', `cannot open the embedded store in ${home}: ${(error as Error).message}`, { cause: error });
  }
}

/** The build's image of the installed PGlite, or null: a checkout not built makes its stores by initdb. */
function buildImage(): string | null {
  try {
    return storeImageDir();
  } catch {
    return null;
  }
}

/** Runs `fn` once; later calls get the first call's promise. */
function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}
