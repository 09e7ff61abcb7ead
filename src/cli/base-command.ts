/**
 * The base of every `tradeseal` command: reads the settings once (a bad setting ends the command with the
 * list of bad settings and exit code 2), turns a `TradesealError` into a one-line message with a hint and
 * the exit code of the one error table, and gives every command `--json`.
 *
 * Under `--json` a failure is JSON too: `{"error": {code, detail, exit, hint?, errors?}}` on stdout, with the
 * same exit code as without `--json`. (oclif's own JSON error path would print the error object without its
 * message and exit 1 whatever exit code `this.error` was given.)
 */
import { Command, Errors } from '@oclif/core';
import { loadConfig, type Config } from '../config.js';
import { EXIT, isTradesealError, type FieldError } from '../errors.js';
import { openStore, type Store } from '../store/db.js';
import { migrate } from '../store/migrate.js';

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'CONNECT_TIMEOUT', 'ECONNRESET']);

interface Failure {
  code: string;
  detail: string;
  exit: number;
  hint?: string;
  errors?: FieldError[];
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
    const store = await openStore(this.settings);
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

  protected override async catch(err: Error & { code?: string }): Promise<unknown> {
    // `this.exit(n)`: the command already said what it had to say.
    if (err instanceof Errors.ExitError) throw err;
    if (isTradesealError(err)) {
      return this.fail({
        code: err.code, detail: err.message, exit: err.exit,
        ...(err.hint ? { hint: err.hint } : {}), ...(err.errors ? { errors: err.errors } : {}),
      });
    }
    // Store connection failures are the most common operator mistake; say so plainly.
    if (err.code !== undefined && UNREACHABLE.has(err.code)) {
      return this.fail({
        code: 'store_unreachable', detail: `cannot reach the store (${err.message})`, exit: EXIT.unavailable,
        hint: 'check DATABASE_URL, or unset it to use the embedded store under TRADESEAL_HOME',
      });
    }
    // `this.error(...)` in a command, and flag parsing errors: already worded for the user, with an exit code.
    const exit = (err as { oclif?: { exit?: number } }).oclif?.exit;
    if (exit !== undefined && this.jsonEnabled()) {
      const suggestion = (err as { suggestions?: string[] }).suggestions?.[0];
      return this.fail({ code: err.code ?? 'usage', detail: err.message, exit, ...(suggestion ? { hint: suggestion } : {}) });
    }
    return super.catch(err);
  }

  private fail(f: Failure): never {
    if (this.jsonEnabled()) {
      this.logJson({ error: f });
      this.exit(f.exit);
    }
    const fields = f.errors?.map((e) => `  ${e.field}: ${e.message}`).join('\n');
    this.error(`${f.code}: ${f.detail}${fields ? `\n${fields}` : ''}`, {
      exit: f.exit,
      ...(f.hint ? { suggestions: [f.hint] } : {}),
    });
  }
}
