/**
 * The files of the TLS settings (TLS_CERT, TLS_KEY, TLS_CLIENT_CA, TLS_CN_MAP), read and checked before the
 * server listens. Every problem is reported at once, each naming its setting and file: a missing or
 * unreadable file, a file that is not what the setting expects, a key that does not belong to the
 * certificate, a CA file holding a certificate that is not a CA, a CN map entry that names no agent, and
 * settings given without the ones they need.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import type { Config } from '../core/config.js';
import { TradesealError, type FieldError } from '../core/errors.js';
import { parseCnMap, type CnMap } from '../engine/mtls.js';

export type TlsSettings = Pick<Config, 'tlsCert' | 'tlsKey' | 'tlsClientCa' | 'tlsCnMap'>;

/** What the HTTPS server serves and trusts, as read from the files. */
export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
  /** null: no client certificates are asked for. */
  clientCa: Buffer | null;
  cnMap: CnMap | null;
  /** The server (leaf) certificate's notAfter, Unix ms. */
  notAfterMs: number;
  /** The server certificate's subject, for logs. */
  subject: string;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The raw bytes of each configured file: what a reload compares to know whether anything changed. */
export function readTlsFiles(s: TlsSettings): Array<Buffer | null> {
  return [s.tlsCert, s.tlsKey, s.tlsClientCa, s.tlsCnMap].map((file) => {
    if (!file) return null;
    try {
      return fs.readFileSync(file);
    } catch {
      return null;
    }
  });
}

/**
 * Reads and checks the TLS files; null when TLS is not configured. Throws one `config_invalid` listing every
 * problem, each as `{field: SETTING, message}` naming the file.
 */
export function loadTlsMaterial(s: TlsSettings): TlsMaterial | null {
  const problems: FieldError[] = [];
  const problem = (field: string, message: string): void => void problems.push({ field, message });
  if (!s.tlsCert && !s.tlsKey) {
    if (s.tlsClientCa) problem('TLS_CLIENT_CA', 'needs TLS_CERT and TLS_KEY: client certificates are asked for over HTTPS only');
    if (s.tlsCnMap) problem('TLS_CN_MAP', 'needs TLS_CLIENT_CA (and TLS_CERT, TLS_KEY)');
    return fail(problems);
  }
  if (!s.tlsCert) problem('TLS_CERT', 'is unset while TLS_KEY is set: set both or neither');
  if (!s.tlsKey) problem('TLS_KEY', 'is unset while TLS_CERT is set: set both or neither');
  if (s.tlsCnMap && !s.tlsClientCa) problem('TLS_CN_MAP', 'needs TLS_CLIENT_CA: without client certificates there are no common names to map');

  const read = (field: string, file: string | null): Buffer | null => {
    if (!file) return null;
    try {
      return fs.readFileSync(file);
    } catch (err) {
      problem(field, `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      return null;
    }
  };
  const cert = read('TLS_CERT', s.tlsCert);
  const key = read('TLS_KEY', s.tlsKey);
  const clientCa = read('TLS_CLIENT_CA', s.tlsClientCa);
  const mapText = read('TLS_CN_MAP', s.tlsCnMap);

  let leaf: X509Certificate | null = null;
  if (cert && s.tlsCert) {
    const first = cert.toString('utf8').match(PEM_CERTIFICATE)?.[0];
    try {
      if (!first) throw new Error('no PEM block');
      leaf = new X509Certificate(first);
    } catch {
      problem('TLS_CERT', `${s.tlsCert} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    }
  }
  if (key && s.tlsKey) {
    try {
      const privateKey = createPrivateKey(key);
      if (leaf && !leaf.checkPrivateKey(privateKey)) problem('TLS_KEY', `the key in ${s.tlsKey} does not belong to the certificate in ${s.tlsCert}`);
    } catch {
      problem('TLS_KEY', `${s.tlsKey} holds no unencrypted PEM private key`);
    }
  }
  if (clientCa && s.tlsClientCa) {
    const blocks = clientCa.toString('utf8').match(PEM_CERTIFICATE) ?? [];
    if (blocks.length === 0) problem('TLS_CLIENT_CA', `${s.tlsClientCa} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    for (const block of blocks) {
      try {
        const ca = new X509Certificate(block);
        if (!ca.ca)
          problem(
            'TLS_CLIENT_CA',
            `${s.tlsClientCa}: the certificate of ${ca.subject.replace(/\n/g, ', ')} is not a CA certificate (basicConstraints CA:TRUE)`,
          );
      } catch {
        problem('TLS_CLIENT_CA', `${s.tlsClientCa} holds a PEM block that is not a certificate`);
      }
    }
  }
  let cnMap: CnMap | null = null;
  if (mapText && s.tlsCnMap) {
    try {
      const parsed = parseCnMap(JSON.parse(mapText.toString('utf8')) as unknown);
      if (parsed.ok) cnMap = parsed.map;
      else for (const p of parsed.problems) problem('TLS_CN_MAP', `${s.tlsCnMap}: ${p}`);
    } catch {
      problem('TLS_CN_MAP', `${s.tlsCnMap} is not valid JSON`);
    }
  }
  if (problems.length > 0 || !cert || !key || !leaf) return fail(problems.length > 0 ? problems : [{ field: 'TLS_CERT', message: 'could not be read' }]);
  return { cert, key, clientCa, cnMap, notAfterMs: Date.parse(leaf.validTo), subject: leaf.subject.replace(/\n/g, ', ') };
}

function fail(problems: FieldError[]): null {
  if (problems.length === 0) return null;
  throw new TradesealError('config_invalid', `invalid TLS settings: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`, {
    errors: problems,
    hint: 'fix each TLS file listed; the README section "Mutual TLS" shows how to make them with openssl',
  });
}
