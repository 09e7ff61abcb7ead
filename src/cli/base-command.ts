/**
 * The base of every `tradeseal` command: reads the settings once (a bad setting ends the command with the
 * list of bad settings and exit code 2), turns every failure into a one-line message with a hint and the
 * exit code of the one error table (src/core/errors.ts), and gives every command `--json` and its JSON Lines form
 * `--jsonl` (./json-lines.ts: the same answer, one compact value per line; a listing one line per row).
 *
 * Every failure has a code of that table: a `TradesealError` its own; a store that cannot be reached
 * `service_unavailable`, one that refuses DATABASE_URL's database, user or password `config_invalid`
 * (../store/connect-errors.ts); a file-system error on a path `validation_failed` naming the path
 * (../core/file-errors.ts); oclif's flag and argument errors `usage_error` (an unknown flag with the command's
 * nearest flags: `--limt` → `did you mean --limit?`); anything else `internal`, with its
 * message (a CLI user is the operator: hiding the message would leave them nothing to act on).
 * Under `--json` a failure is JSON too: `{"error": {code, detail, exit, hint?, errors?, …}}` on stdout (with the
 * error's own fields, as over HTTP: `input_changes` of `history_not_extendable`), with the
 * same exit code as without `--json` (under `--jsonl`, on one line).
 */
import { Command, Errors, Flags } from '@oclif/core';
import { loadConfig, type Config } from '../core/config.js';
import { ERROR_CODES, isTradesealError, TradesealError, type ErrorCode, type FieldError } from '../core/errors.js';
import { openStore, type Store } from '../store/db.js';
import { isStoreFault } from '../store/faults.js';
import { storeConnectionError } from '../store/connect-errors.js';
import { fileError, isFsError } from '../core/file-errors.js';
import { migrate } from '../store/migrate.js';
import { compileWasmForABriefRun } from './brief-wasm.js';
import { suggestions } from './closest.js';
import { jsonLines, toJsonLines } from './json-lines.js';

interface Failure {
  code: ErrorCode;
  detail: string;
  exit: number;
  hint?: string;
  errors?: FieldError[];
  /** The error's own fields beyond these (e.g. `input_changes`), as the HTTP services answer them. */
  extra?: Record<string, unknown>;
}

/** `--jsonl`, beside oclif's `--json` on every command that has it. */
const jsonlFlag = Flags.boolean({
  description: 'Format output as JSON Lines: one compact JSON value per line (a listing: one line per row), for logs and pipes.',
  helpGroup: 'GLOBAL',
  exclusive: ['json'],
});

/** oclif's error for flags a command does not have: the flags as typed, and the definitions it parsed with. */
interface UnknownFlagsError extends Error {
  flags: string[];
  parse: { input: { flags: Record<string, { name: string; hidden?: boolean; allowNo?: boolean }> } };
}

const isUnknownFlagsError = (err: Error): err is UnknownFlagsError =>
  Array.isArray((err as Partial<UnknownFlagsError>).flags) && typeof (err as Partial<UnknownFlagsError>).parse?.input?.flags === 'object';

/** The flag definitions an oclif parse error carries, when it carries them. */
type ParsedFlags = Record<string, { name: string; summary?: string; description?: string }>;
const parsedFlagsOf = (err: Error): ParsedFlags | undefined => (err as { parse?: { input?: { flags?: ParsedFlags } } }).parse?.input?.flags;

/** oclif's "Missing required flag returns", made to say what the flag is: "Missing required flag --returns: Column of …". */
function withFlagSummaries(message: string, flags: ParsedFlags | undefined): string {
  return message.replace(/Missing required flag ([\w-]+)/g, (line, name: string) => {
    const what = flags?.[name]?.summary ?? flags?.[name]?.description;
    return what ? `Missing required flag --${name}: ${what}` : line;
  });
}

export abstract class TradesealCommand extends Command {
  static override enableJsonFlag = true;

  /**
   * A listing's rows: the property of its answer that holds them (`traces`), so that `--jsonl` prints one line
   * per row. An answer that is an array is its rows without saying so.
   */
  static jsonLinesRows?: string;

  /** `--jsonl`; a command that opts out of `--json` (`enableJsonFlag = false`) opts out of it too (`baseFlags = {}`). */
  static override baseFlags: Record<string, typeof jsonlFlag> = { jsonl: jsonlFlag };

  /**
   * How long the command works in the embedded store: `brief` (a listing, a lookup: the default) or `long`
   * (`serve`, a pipeline run). A brief command opens PGlite without V8's optimising recompilation (./brief-wasm.ts).
   */
  static storeWork: 'brief' | 'long' = 'brief';

  private loaded?: Config;

  /** The validated, frozen settings, read from the environment once per command. */
  protected get settings(): Config {
    this.loaded ??= loadConfig();
    return this.loaded;
  }

  /**
   * Runs `fn` with an open store and always closes it. When the open made a new, empty embedded store (nothing
   * was under TRADESEAL_HOME: a first run, or a mistyped path) it says so once on stderr, so that an empty answer
   * is not taken for an empty store the user meant; `creates` silences it for a command that makes the store on
   * purpose (`db migrate`, `pipeline run`, `serve`).
   */
  protected async withStore<T>(fn: (store: Store) => Promise<T>, options: { migrate?: boolean; creates?: boolean } = {}): Promise<T> {
    if (this.settings.databaseUrl === null && (this.ctor as typeof TradesealCommand).storeWork === 'brief') compileWasmForABriefRun();
    const store = await openStore(this.settings, { purpose: this.id ?? 'command' });
    // Written to stderr directly: oclif's logToStderr is silent under --json, and this is said whatever the answer's form.
    if (store.created && !options.creates)
      process.stderr.write(
        `notice: no store was in ${this.settings.home} (TRADESEAL_HOME), so a new, empty one was made there; if you meant an existing store, check TRADESEAL_HOME\n`,
      );
    try {
      // Pending migrations are applied first (idempotent, under their advisory lock), as `serve` does, so a
      // command on a fresh store answers instead of failing on a missing table. `db status|migrate` opt out.
      if (options.migrate !== false) await migrate(store.sql);
      return await fn(store);
    } finally {
      await store.close();
    }
  }

  /** Whether the answer is JSON: `--json`, or `--jsonl` (its JSON Lines form). */
  override jsonEnabled(): boolean {
    return super.jsonEnabled() || this.jsonLinesEnabled();
  }

  /** Whether `--jsonl` was given (before a `--`, as oclif reads `--json`) to a command that has it. */
  protected jsonLinesEnabled(): boolean {
    if (!this.ctor.enableJsonFlag) return false;
    const at = this.argv.indexOf('--jsonl');
    const end = this.argv.indexOf('--');
    return at !== -1 && (end === -1 || at < end);
  }

  /** The JSON answer: oclif's indented document, or under `--jsonl` one compact line per value (./json-lines.ts). */
  override logJson(json: unknown): void {
    if (!this.jsonLinesEnabled()) return super.logJson(json);
    process.stdout.write(toJsonLines(jsonLines(json, (this.ctor as typeof TradesealCommand).jsonLinesRows)));
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
    const { default: confirm } = await import('@inquirer/confirm');
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
        code: err.code,
        detail: err.message,
        exit: err.exit,
        ...(err.hint ? { hint: err.hint } : {}),
        ...(err.errors ? { errors: err.errors } : {}),
        ...(err.extra ? { extra: err.extra } : {}),
      };
    }
    // Store connection failures are the most common operator mistake; say plainly which store and what to do.
    if (isStoreFault(err)) {
      const embedded = this.loaded !== undefined && this.loaded.databaseUrl === null;
      return {
        code: 'service_unavailable',
        detail: `cannot reach the store (${err.code}: ${err.message})`,
        exit: ERROR_CODES.service_unavailable.exit,
        hint: embedded
          ? `the embedded store under ${this.loaded?.home} is served by another tradeseal process that did not answer; wait for it (\`tradeseal pipeline status\`) or stop it`
          : 'check DATABASE_URL and that the server is up, or unset DATABASE_URL to use the embedded store under TRADESEAL_HOME',
      };
    }
    if (isUnknownFlagsError(err)) return this.unknownFlags(err);
    // oclif's own errors about the command line (unknown flag, bad value, missing argument).
    const oclifExit = (err as { oclif?: { exit?: number } }).oclif?.exit;
    if (oclifExit !== undefined && oclifExit !== 1) {
      const suggestion = (err as { suggestions?: string[] }).suggestions?.[0];
      const detail = withFlagSummaries(err.message, parsedFlagsOf(err));
      return { code: 'usage_error', detail, exit: ERROR_CODES.usage_error.exit, ...(suggestion ? { hint: suggestion } : {}) };
    }
    const detail = err.message ? `${err.name}: ${err.message}` : String(err);
    return { code: 'internal', detail, exit: ERROR_CODES.internal.exit, hint: 'this is a bug in tradeseal or its environment; the detail says what failed' };
  }

  /** Flags the command does not have, each with the nearest it does (`--limt` → `--limit`), and where to see them all. */
  private unknownFlags(err: UnknownFlagsError): Failure {
    const known = Object.values(err.parse.input.flags)
      .filter((f) => !f.hidden)
      .flatMap((f) => (f.allowNo ? [f.name, `no-${f.name}`] : [f.name]));
    const typed = err.flags.map((f) => f.split('=')[0]!);
    const nearest = typed
      .map((f) => ({ f, near: f.startsWith('--') ? suggestions(f.slice(2), known, { separator: '-' }) : [] }))
      .filter((x) => x.near.length > 0);
    const meant = (near: string[]): string => `did you mean ${near.map((n) => `--${n}`).join(' or ')}?`;
    const guesses = nearest.length === 1 && typed.length === 1 ? meant(nearest[0]!.near) : nearest.map((x) => `${x.f}: ${meant(x.near)}`).join('; ');
    const command = `\`${[this.config.bin, ...(this.id ? this.id.split(':') : [])].join(' ')} --help\` lists its flags`;
    return {
      code: 'usage_error',
      detail: err.message.split('\n')[0]!,
      exit: ERROR_CODES.usage_error.exit,
      hint: guesses === '' ? command : `${guesses} (${command})`,
    };
  }

  private fail(f: Failure): never {
    if (this.jsonEnabled()) {
      const { extra, ...core } = f;
      this.logJson({ error: { ...extra, ...core } });
      this.exit(f.exit);
    }
    // A field the detail already states (`invalid settings: DATABASE_URL=… (expected …)`) is not said again under it.
    const fields = f.errors
      ?.filter((e) => !(f.detail.includes(e.field) && f.detail.includes(e.message)))
      .map((e) => `  ${e.field}: ${e.message}`)
      .join('\n');
    this.error(`${f.code}: ${f.detail}${fields ? `\n${fields}` : ''}`, {
      exit: f.exit,
      ...(f.hint ? { suggestions: [f.hint] } : {}),
    });
  }
}
