/**
 * Registration by e-mail (docs/decisions/0019-registration-code.md): `register` mails a 6-digit code, `verify` turns
 * the address and its code into an account on the free tier with its first key (returned once).
 *
 * - A register replaces the address's earlier code. Its code is stored (hashed, ../verification.ts) before the
 *   mail is sent; a mail that cannot be sent removes that code again and answers 503, so nothing half done
 *   blocks a retry.
 * - At most one mail a minute goes to an address (`claimMailSlot`): a register within the minute is 429
 *   `rate_limited`, so the route cannot be used to flood an inbox.
 * - At most `perClient` mails an hour are sent for one client address, and `total` in all
 *   (`claimRegistrationMail`): beyond them 429 `rate_limited`, so the route cannot be used as a mail relay.
 *   Every refusal says when the next mail may go (`retry_at`; the route adds `Retry-After`).
 * - An address that already has an account gets a mail saying so, and how to rotate its key, instead of a
 *   code, and the same 202: the answer does not tell a stranger which addresses have accounts. A second
 *   account per address is never created, so a register cannot be used to obtain a second free key.
 * - Verify takes the address's pending code under a row lock, in one transaction with the account and its
 *   key: of two concurrent verifications of one code one creates the account, the other finds no code. The
 *   code is hashed before that transaction, against the pending code's form read without a lock (a scrypt
 *   hash takes a fifth of a second, which no lock or connection should wait on), and again inside it only
 *   if a new register replaced the code meanwhile. Verifications of one address take turns in each process,
 *   so a burst of them costs no more hashes than the tries a code has.
 *   A wrong code counts a try, committed even though the request fails; at five the code no longer works,
 *   not even the right one, until a new register. The transaction also removes the code from the outbox.
 */
import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';
import { TradesealError } from '../../core/errors.js';
import type { RegisterInput, VerifyInput } from '../account-inputs.js';
import type { Mailer } from '../mail/mailer.js';
import { accountExistsMail, verificationMail } from '../mail/messages.js';
import { accountByEmail, createAccount } from '../store/accounts.js';
import { issueKey } from '../store/keys.js';
import { claimRegistrationMail, releaseRegistrationMail, type RegistrationLimits } from '../store/registration-mails.js';
import {
  claimMailSlot,
  releaseMailSlot,
  countWrongTry,
  deleteVerification,
  dropVerification,
  lockVerification,
  peekVerification,
  putVerification,
} from '../store/verifications.js';
import { scrubOutboxCodes } from '../mail/outbox.js';
import { TIER_SPECS } from '../tiers.js';
import { CODE_TTL_MS, MAX_WRONG_TRIES, newVerificationCode, normalizeEmail, type CodeHasher } from '../verification.js';

export interface Registered {
  status: 'verification_sent';
  email: string;
}

/** Who asks, and the hourly limits of registration mail. */
export interface RegisterClient {
  baseUrl: string;
  /** The client's address (`request.ip`). */
  ip: string;
  limits: RegistrationLimits;
}

export async function register(sql: Sql, mailer: Mailer, codes: CodeHasher, client: RegisterClient, input: RegisterInput): Promise<Registered> {
  const email = normalizeEmail(input.email);
  const slot = await claimMailSlot(sql, email);
  if ('next' in slot) {
    throw rateLimited(
      `a registration mail went to this address less than a minute ago; the next one may go at ${slot.next.toISOString()}`,
      slot.next,
      'wait a minute, then register again',
    );
  }
  const hourly = await claimRegistrationMail(sql, client.ip, client.limits).catch(async (err: unknown) => {
    await releaseMailSlot(sql, email, slot.taken).catch(() => {});
    throw err;
  });
  if (!hourly.ok) {
    // No mail goes: the address's minute is given back.
    await releaseMailSlot(sql, email, slot.taken).catch(() => {});
    const next = hourly.next.toISOString();
    throw rateLimited(
      hourly.scope === 'client'
        ? `${hourly.limit} registration mails were sent for this client address in the last hour; the next one may go at ${next}`
        : `the service sent its ${hourly.limit} registration mails of the last hour; the next one may go at ${next}`,
      hourly.next,
      'register again after the Retry-After seconds',
    );
  }
  try {
    return await sendRegistrationMail(sql, mailer, codes, client.baseUrl, email);
  } catch (err) {
    // Nothing reached the address: the slots are given back, so a retry is not throttled.
    await releaseMailSlot(sql, email, slot.taken).catch(() => {});
    await releaseRegistrationMail(sql, hourly.id).catch(() => {});
    throw err;
  }
}

const rateLimited = (detail: string, next: Date, hint: string): TradesealError =>
  new TradesealError('rate_limited', detail, { extra: { retry_at: next.toISOString() }, hint });

async function sendRegistrationMail(sql: Sql, mailer: Mailer, codes: CodeHasher, baseUrl: string, email: string): Promise<Registered> {
  if (await accountByEmail(sql, email)) {
    await mailer.send(accountExistsMail(email, baseUrl));
    return { status: 'verification_sent', email };
  }
  const code = newVerificationCode();
  const hash = await codes.hash(email, code);
  const { expires_at: expiresAt } = await putVerification(sql, email, hash, CODE_TTL_MS);
  try {
    await mailer.send(verificationMail(email, code, expiresAt, baseUrl));
  } catch (err) {
    // Not kept: nobody received the code. A failure here leaves a code nobody knows, which the next register replaces.
    await dropVerification(sql, email, hash).catch(() => {});
    throw err;
  }
  return { status: 'verification_sent', email };
}

export interface Verified {
  api_key: string;
  email: string;
  tier: 'free';
  daily_limit: number;
}

type Outcome = { ok: true; verified: Verified } | { ok: false; detail: string };

const failed = (detail: string): Outcome => ({ ok: false, detail });

export function verify(sql: Sql, codes: CodeHasher, input: VerifyInput): Promise<Verified> {
  const email = normalizeEmail(input.email);
  return inTurn(email, () => verifyNow(sql, codes, email, input.code));
}

/**
 * The verifications of one address take turns in this process: a burst of requests for one pending code hashes
 * at most the five wrong tries and the right one (a scrypt hash is a fifth of a second of CPU), the rest finding
 * the code used up before they hash anything.
 */
const turns = new Map<string, Promise<unknown>>();
function inTurn<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const run = (turns.get(key) ?? Promise.resolve()).then(fn, fn);
  const done = run.then(
    () => {},
    () => {},
  );
  turns.set(key, done);
  void done.then(() => {
    if (turns.get(key) === done) turns.delete(key);
  });
  return run;
}

async function verifyNow(sql: Sql, codes: CodeHasher, email: string, code: string): Promise<Verified> {
  const seen = await peekVerification(sql, email);
  const matched = seen && seen.attempts < MAX_WRONG_TRIES && !seen.expired ? await codes.matches(seen.code_hash, email, code) : null;
  const outcome = await sql.begin(async (t): Promise<Outcome> => {
    const pending = await lockVerification(t, email);
    if (!pending) return failed('no verification code is pending for this address: register first (POST /v1/auth/register)');
    if (pending.attempts >= MAX_WRONG_TRIES) {
      return failed(`${MAX_WRONG_TRIES} wrong codes were tried, so this code no longer works: register again for a new one`);
    }
    if (pending.expired) return failed(`the code expired at ${pending.expires_at.toISOString()}: register again for a new one`);
    const right = matched !== null && pending.code_hash === seen?.code_hash ? matched : await codes.matches(pending.code_hash, email, code);
    if (!right) {
      const left = MAX_WRONG_TRIES - (await countWrongTry(t, email));
      return failed(
        left > 0
          ? `the code is wrong; ${left} ${left === 1 ? 'try is' : 'tries are'} left`
          : `the code is wrong, and that was the ${MAX_WRONG_TRIES}th wrong try: this code no longer works; register again for a new one`,
      );
    }
    await deleteVerification(t, email);
    // The code is used up: no copy of it stays in the outbox either.
    await scrubOutboxCodes(t, email);
    const account = await createAccount(t, { account_id: randomUUID(), email, tier: 'free', agent_count: 0 });
    // An account made meanwhile by an operator (`tradeseal signals keys issue`): the code is used up, nothing more.
    if (!account) return failed('this address already has an account: rotate its key (POST /v1/auth/rotate), or ask the operator for a new one');
    const key = await issueKey(t, account.account_id);
    return { ok: true, verified: { api_key: key.api_key, email, tier: 'free', daily_limit: TIER_SPECS.free.dailyLimit! } };
  });
  if (!outcome.ok) throw new TradesealError('verification_failed', outcome.detail);
  return outcome.verified;
}
