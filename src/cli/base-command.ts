/**
 * The base of every `tradeseal` command: reads the settings once (a bad setting ends the command with the
 * list of bad settings and exit code 2), turns every failure into a one-line message with a hint and the
 * exit code of the one error table (src/errors.ts), and gives every command `--json`.
 *
 * Every failure has a code of that table: a `TradesealError` its own; a store that cannot be reached
 * `service_unavailable`, one that refuses DATABASE_URL's database, user or password `config_invalid`
 * (../store/connect-errors.ts); a file-system error on a path `validation_failed` naming the path
 * (../file-errors.ts); oclif's flag and argument errors `usage_error`; anything else `internal`, with its
 * message (a CLI user is the operator: hiding the message would leave them nothing to act on).
 * Under `--json` a failure is JSON too: `{"error": {code, detail, exit, hint?, errors?, …}}` on stdout (with the
 * error's own fields, as over HTTP: `input_changes` of `history_not_extendable`), with the
 * same exit code as without `--json`.
 */
import { Command, Errors } from '@oclif/core';
import confirm from '@inquirer/confirm';
import { loadConfig, type Config } from '../config.js';
import { ERROR_CODES, isTradesealError, TradesealError, type ErrorCode, type FieldError } from '../errors.js';
import { openStore, type Store } from '../store/db.js';
import { isStoreFault } from '../store/faults.js';
import { storeConnectionError } from '../store/connect-errors.js';
import { fileError, isFsError } from '../file-errors.js';
import { migrate } from '../store/migrate.js';

interface Failure {
  code: ErrorCode;
  detail: string;
  exit: number;
  hint?: string;
  errors?: FieldError[];
  /** The error's own fields beyond these (e.g. `input_changes`), as the HTTP services answer them. */
  extra?: Record<string, unknown>;
}

export abstract class TradesealCommand extends Command {
  static override enableJsonFlag = true;

  private loaded?: Config;

  /** The validated, frozen settings, read from the environment once per command. */
  protected get settings(): Config {
    this.loaded ??= loadConfig();
    return this.loaded;
  }

  /** Runs `fn` with an open store and always closes it. */
  protected async withStore<T>(fn: (store: Store) => Promise<T>, options: { migrate?: boolean } = {}): Promise<T> {
    const store = await openStore(this.settings, { purpose: this.id ?? 'command' });
    try {
      // Pending migrations are applied first (idempotent, under their advisory lock), as `serve` does, so a
      // command on a fresh store answers instead of failing on a missing table. `db status|migrate` opt out.
      if (options.migrate !== false) await migrate(store.sql);
      return await fn(store);
    } finally {
      await store.close();
    }
  }

  /** Prints `data` as the command's JSON answer (under `--json`), then ends with `exit`: a result that is also a failure. */
  protected exitWith(data: object, exit: number): never {
    if (this.jsonEnabled()) this.logJson(data);
    this.exit(exit);
  }

  /**
   * Asks the operator to confirm a destructive step: true with `--yes`, a prompt on a terminal, and
   * `confirmation_required` (exit 2) when nobody can answer (no terminal, or `--json`).
   */
  protected async confirmDestructive(question: string, yes: boolean): Promise<true> {
    if (yes) return true;
    if (!process.stdin.isTTY || !process.stderr.isTTY || this.jsonEnabled()) {
      throw new TradesealError('confirmation_required', `${question} Nobody confirmed it: there is no terminal to ask`, { hint: 'pass --yes to confirm' });
    }
    const ok = await confirm({ message: question, default: false }, { output: process.stderr });
    if (!ok) throw new TradesealError('confirmation_required', 'not confirmed: nothing was changed');
    return true;
  }

  protected override async catch(err: Error & { code?: string }): Promise<unknown> {
    // `this.exit(n)`: the command already said what it had to say.
    if (err instanceof Errors.ExitError) throw err;
    return this.fail(this.failureOf(err));
  }

  private failureOf(err: Error & { code?: string }): Failure {
    // A server that refuses DATABASE_URL's database, user or password, or is not at its host and port: say which
    // and what to do (a migration's store_error carries the refusal as its cause).
    const databaseUrl = this.loaded?.databaseUrl;
    if (databaseUrl && (!isTradesealError(err) || err.code === 'store_error')) {
      const mistake = storeConnectionError(err, databaseUrl);
      if (mistake) return this.failureOf(mistake);
    }
    // A path that a command read or wrote without naming its flag (a missing file, a read-only directory).
    if (isFsError(err)) {
      const writing = ['mkdir', 'rename', 'unlink', 'rmdir', 'write', 'copyfile', 'symlink'].includes(err.syscall ?? '');
      return this.failureOf(fileError(err, { field: 'path', file: err.path ?? 'a file', action: writing ? 'write' : 'read' }) as TradesealError);
    }
    if (isTradesealError(err)) {
      return {
        code: err.code, detail: err.message, exit: err.exit, ...(err.hint ? { hint: err.hint } : {}), ...(err.errors ? { errors: err.errors } : {}),
        ...(err.extra ? { extra: err.extra } : {}),
      };
    }
    // Store connection failures are the most common operator mistake; say plainly which store and what to do.
    if (isStoreFault(err)) {
      const embedded = this.loaded !== undefined && this.loaded.databaseUrl === null;
      return {
        code: 'service_unavailable', detail: `cannot reach the store (${err.code}: ${err.message})`, exit: ERROR_CODES.service_unavailable.exit,
        hint: embedded
          ? `the embedded store under ${this.loaded?.home} is served by another tradeseal process that did not answer; wait for it (\`tradeseal pipeline status\`) or stop it`
          : 'check DATABASE_URL and that the server is up, or unset DATABASE_URL to use the embedded store under TRADESEAL_HOME',
      };
    }
    // oclif's own errors about the command line (unknown flag, bad value, missing argument).
    const oclifExit = (err as { oclif?: { exit?: number } }).oclif?.exit;
    if (oclifExit !== undefined && oclifExit !== 1) {
      const suggestion = (err as { suggestions?: string[] }).suggestions?.[0];
      return { code: 'usage_error', detail: err.message, exit: ERROR_CODES.usage_error.exit, ...(suggestion ? { hint: suggestion } : {}) };
    }
    const detail = err.message ? `${err.name}: ${err.message}` : String(err);
    return { code: 'internal', detail, exit: ERROR_CODES.internal.exit, hint: 'this is a bug in tradeseal or its environment; the detail says what failed' };
  }

  private fail(f: Failure): never {
    if (this.jsonEnabled()) {
      const { extra, ...core } = f;
      this.logJson({ error: { ...extra, ...core } });
      this.exit(f.exit);
    }
    const fields = f.errors?.map((e) => `  ${e.field}: ${e.message}`).join('\n');
    this.error(`${f.code}: ${f.detail}${fields ? `\n${fields}` : ''}`, {
      exit: f.exit,
      ...(f.hint ? { suggestions: [f.hint] } : {}),
    });
  }
}
