/** An Ed25519 public key as the key commands print it: a title, then its hex, base64 and PEM forms. */
import type { PublicKeyForms } from '../signals/signing-key.js';

export function renderPublicKey(title: string, forms: PublicKeyForms, before: string[] = []): string {
  return [title, '', ...before, `public key, hex     ${forms.hex}`, `public key, base64  ${forms.base64}`, 'public key, PEM', forms.pem.trimEnd()].join('\n');
}
