/**
 * The texts of the signal service's mail. Plain text only; every address and link is built from the public base
 * URL (`publicBaseUrl`: PUBLIC_BASE_URL, else where the server listens). A registration for an address that
 * already has an account gets a mail too (it says so, and how to replace a key), so the register answer never
 * tells a stranger whether an account exists.
 * A mail with a verification code also carries its text with `CODE_MARK` in the code's place, which is what
 * the local outbox keeps (./outbox.ts).
 */
import type { MailMessage } from './message.js';

const PRODUCT = 'tradeseal regime signals';

/**
 * Where a code goes in the text the outbox keeps. Not ASCII, so no address (the schemas admit ASCII only) or
 * URL in the text can contain it.
 */
export const CODE_MARK = '\u27E6code\u27E7';

export function verificationMail(to: string, code: string, expiresAt: Date, baseUrl: string): MailMessage {
  const text = (shown: string): string =>
    [
      `Your verification code is ${shown}.`,
      '',
      `It is valid for 15 minutes (until ${expiresAt.toISOString()}). Send it with your address to receive your`,
      'API key, which is shown once:',
      '',
      `  curl -s -X POST ${baseUrl}/v1/auth/verify -H 'Content-Type: application/json' \\`,
      `    -d '{"email": "${to}", "code": "${shown}"}'`,
      '',
      'If you did not ask for this code, ignore this mail: no account is created without it.',
      '',
      `Documentation: ${baseUrl}/docs`,
    ].join('\n');
  return {
    to,
    subject: `${PRODUCT}: your verification code`,
    text: text(code),
    code: { value: code, expiresAt, textWithMark: text(CODE_MARK) },
  };
}

export function accountExistsMail(to: string, baseUrl: string): MailMessage {
  return {
    to,
    subject: `${PRODUCT}: this address already has an account`,
    text: [
      'Someone, probably you, asked to register this address. It already has an account, so no code was issued',
      'and no new account or key was created.',
      '',
      'To replace your API key, rotate it: the key you send stops working at once and a new one is returned once.',
      '',
      `  curl -s -X POST ${baseUrl}/v1/auth/rotate -H 'X-Signals-Key: <your key>'`,
      '',
      'If you no longer have your key, ask the operator of this service to issue a new one.',
      'If you did not ask to register, ignore this mail: nothing was changed.',
      '',
      `Documentation: ${baseUrl}/docs`,
    ].join('\n'),
  };
}
