/**
 * The crypto core of tradeseal: RFC 8785 canonical JSON, SHA-256 content hashes and RFC 8032 Ed25519.
 * Import from here rather than from the individual modules.
 */
export { canonicalJson } from './jcs.js';
export { hashJson, sha256Hex } from './hash.js';
export {
  PUBLIC_KEY_LENGTH,
  SECRET_KEY_LENGTH,
  SIGNATURE_LENGTH,
  fromBase64,
  generateKeyPair,
  parsePublicKey,
  publicKeyFromSecret,
  publicKeyToPem,
  sign,
  toBase64,
  verify,
} from './ed25519.js';
