/** A message the service sends: to one address, plain text, perhaps carrying a verification code. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /**
   * The verification code `text` carries, when it carries one: when it stops working, and the text with
   * `CODE_MARK` in its place. The outbox keeps that text and the code apart, only until delivery (./outbox.ts).
   */
  code?: { value: string; expiresAt: Date; textWithMark: string };
}
