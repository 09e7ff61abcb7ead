/**
 * A path the operator gave (a command's argument or flag, or a setting naming a file or directory), and the
 * file-system error it met, said as a mistake of the table: which flag or setting, which path, what is wrong
 * with it in words, and what to do. A missing file, a missing or read-only directory, a directory given as a
 * file are ordinary mistakes, not faults of tradeseal, so they are never `internal`.
 *
 * `readInputFile`, `checkInputDir`, `checkOutputFile` and `ensureDir` are the edges where a command reads or
 * is about to write such a path;
 * `fileError` turns any error met there into a `TradesealError` (an error that is not a file-system one is
 * handed back unchanged: it is not the path's fault). The base command uses `fileError` too, for any
 * file-system error that reached it without a flag (it then names the path alone).
 */
import { constants } from 'node:fs';
import { access, mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { TradesealError, type ErrorCode } from './errors.js';

export type FileAction = 'read' | 'write';

/** A Node file-system error: an errno code and, usually, the path and the system call. */
interface FsError extends Error {
  code: string;
  path?: string;
  syscall?: string;
}

/** The errno codes that say something about the path itself, in words; any other code is not the path's fault. */
const REASONS: Record<string, (action: FileAction) => string> = {
  ENOENT: (action) => (action === 'read' ? 'does not exist' : 'is in a directory that does not exist'),
  ENOTDIR: () => 'has a part that is not a directory',
  EISDIR: () => 'is a directory, not a file',
  EACCES: (action) => (action === 'read' ? 'cannot be read: permission denied' : 'cannot be written: permission denied'),
  EPERM: () => 'is not permitted to this user',
  EROFS: () => 'is on a read-only file system',
  ENOSPC: () => 'cannot be written: no space left on the device',
  EDQUOT: () => 'cannot be written: the disk quota is exceeded',
  ENAMETOOLONG: () => 'has a name that is too long',
  ELOOP: () => 'has too many symbolic links (a loop)',
  // mkdir of a path that is a file.
  EEXIST: () => 'is a file where a directory is needed',
};

export const isFsError = (err: unknown): err is FsError =>
  err instanceof Error && typeof (err as { code?: unknown }).code === 'string' && Object.hasOwn(REASONS, (err as FsError).code);

export interface PathOf {
  /** The flag, argument or setting that named the path: `--out`, `FILE`, `POLICY_PATH`. */
  field: string;
  /** The path as the operator gave it. */
  file: string;
  action: FileAction;
  /** The table code; default `validation_failed`. A setting's path is `config_invalid`. */
  code?: ErrorCode;
  /** The next step; a default one for the action otherwise. */
  hint?: string;
}

const DEFAULT_HINT: Record<FileAction, string> = {
  read: 'check the path (it must be a readable file), or run the command from the directory it is relative to',
  write: 'give a path in an existing directory that you can write to (create the directory first with mkdir -p)',
};

/** `err` said as a mistake of the path `of` names; an error that is not a file-system one is returned unchanged. */
export function fileError(err: unknown, of: PathOf): unknown {
  if (!isFsError(err)) return err;
  const reason = `${of.file} ${REASONS[err.code]!(of.action)} (${err.code})`;
  return new TradesealError(of.code ?? 'validation_failed', `${of.field}: ${reason}`, {
    errors: [{ field: of.field, message: reason }],
    hint: of.hint ?? DEFAULT_HINT[of.action],
    cause: err,
  });
}

/** The text of an input file; a missing, unreadable or directory path is a mistake naming `field`. */
export async function readInputFile(file: string, field: string, options: { code?: ErrorCode; hint?: string } = {}): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw fileError(err, { field, file, action: 'read', ...options });
  }
}

/**
 * Checks, before any work is done, that `file` can be written as a new or replaced file: its directory
 * exists, is a directory and is writable, and the path is not a directory itself. What can still go wrong
 * while writing (a full disk) is for `fileError` at the write.
 */
export async function checkOutputFile(file: string, field: string): Promise<void> {
  const dir = path.dirname(path.resolve(file));
  const mistake = (reason: string, code: string): TradesealError =>
    new TradesealError('validation_failed', `${field}: ${file} ${reason} (${code})`, {
      errors: [{ field, message: `${file} ${reason}` }],
      hint: DEFAULT_HINT.write,
    });
  let dirStat;
  try {
    dirStat = await stat(dir);
  } catch (err) {
    if (isFsError(err) && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) throw mistake(`is in ${dir}, which does not exist`, err.code);
    throw fileError(err, { field, file, action: 'write' });
  }
  if (!dirStat.isDirectory()) throw mistake(`is in ${dir}, which is not a directory`, 'ENOTDIR');
  const existing = await stat(file).catch(() => null);
  if (existing?.isDirectory()) throw mistake('is a directory, not a file', 'EISDIR');
  try {
    await access(dir, constants.W_OK);
  } catch (err) {
    if (isFsError(err)) throw mistake(`is in ${dir}, which this user cannot write to`, err.code);
    throw err;
  }
}

/** Checks that `dir` is a directory that can be read: a missing path, or a file given as the directory, names `field`. */
export async function checkInputDir(dir: string, field: string, options: { code?: ErrorCode; hint?: string } = {}): Promise<void> {
  let found;
  try {
    found = await stat(dir);
  } catch (err) {
    throw fileError(err, {
      field,
      file: dir,
      action: 'read',
      hint: options.hint ?? 'give the directory that holds the files',
      ...(options.code ? { code: options.code } : {}),
    });
  }
  if (!found.isDirectory()) {
    const message = `${dir} is a file, not a directory`;
    throw new TradesealError(options.code ?? 'validation_failed', `${field}: ${message}`, {
      errors: [{ field, message }],
      hint: options.hint ?? 'give the directory that holds the files',
    });
  }
}

/** Makes the directory `dir` if it is not there (with its parents); a file in the way, or no permission, names `field`. */
export async function ensureDir(dir: string, field: string, options: { code?: ErrorCode; hint?: string } = {}): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw fileError(err, {
      field,
      file: dir,
      action: 'write',
      hint: options.hint ?? 'give a directory this user can write to, or a path where one can be made',
      ...(options.code ? { code: options.code } : {}),
    });
  }
}
