/**
 * The TLS a server serves: the options its HTTPS server is built with, health's `cert_expiry_status`, who a
 * client certificate's common name stands for, and the reload of renewed files.
 *
 * Certificates are renewed while servers run (an ACME client, cert-manager, an operator's script), so the
 * files are read again every minute; when their bytes changed and they pass every start-time check, the
 * server swaps them in (`tls.Server#setSecureContext`) for new connections, and health reports the new
 * certificate's expiry. Files that fail the checks (a key written a moment after its certificate, say) are
 * not served: the server keeps the previous ones, logs why once, and tries again at the next check.
 */
import type { ServerOptions } from 'node:https';
import type { SecureContextOptions, Server as TlsServer } from 'node:tls';
import { identityOf, type ClientIdentity } from '../engine/mtls.js';
import { certExpiryStatus, type CertExpiryStatus } from './cert-expiry.js';
import { loadTlsMaterial, readTlsFiles, type TlsMaterial, type TlsSettings } from './tls-files.js';

/** How often the files are read again, unless the server is told otherwise. */
export const TLS_RELOAD_MS = 60_000;

export type TlsLog = (level: 'info' | 'warn' | 'error', message: string) => void;

const sameFiles = (a: Array<Buffer | null>, b: Array<Buffer | null>): boolean =>
  a.length === b.length && a.every((x, i) => (x === null ? b[i] === null : b[i] !== null && x.equals(b[i] as Buffer)));

export class ServedTls {
  private constructor(
    private readonly settings: TlsSettings,
    private material: TlsMaterial,
    private served: Array<Buffer | null>,
  ) {}

  /** Reads and checks the files of the TLS settings (throws `config_invalid`); null without TLS. */
  static load(settings: TlsSettings): ServedTls | null {
    // The bytes are taken before they are checked, so a change in between is seen by the next reload.
    const files = readTlsFiles(settings);
    const material = loadTlsMaterial(settings);
    return material ? new ServedTls(settings, material, files) : null;
  }

  /** Whether clients are asked for certificates (TLS_CLIENT_CA). */
  get mutual(): boolean {
    return this.material.clientCa !== null;
  }

  get notAfter(): Date {
    return new Date(this.material.notAfterMs);
  }

  get subject(): string {
    return this.material.subject;
  }

  /**
   * A client certificate is asked for but the handshake does not depend on it: the routes that need one
   * (src/http/client-cert.ts) refuse without it, while `/v1`, health and the API document stay open.
   */
  httpsOptions(): ServerOptions {
    return { ...this.secureContext(), ...(this.mutual ? { requestCert: true, rejectUnauthorized: false } : {}) };
  }

  expiryStatus(nowMs = Date.now()): CertExpiryStatus {
    return certExpiryStatus(this.material.notAfterMs, nowMs);
  }

  identityOf(commonName: string | null): ClientIdentity {
    return identityOf(commonName, this.material.cnMap);
  }

  /** Reads the files again; serves them when they changed and pass the checks (else throws `config_invalid`). */
  reload(server: TlsServer): boolean {
    const files = readTlsFiles(this.settings);
    if (sameFiles(files, this.served)) return false;
    const material = loadTlsMaterial(this.settings);
    if (!material) return false;
    server.setSecureContext(secureContextOf(material));
    this.material = material;
    this.served = files;
    return true;
  }

  /** Reloads every `intervalMs`; returns the function that stops it. */
  watch(server: TlsServer, intervalMs: number, log: TlsLog): () => void {
    let lastProblem = '';
    const timer = setInterval(() => {
      try {
        if (!this.reload(server)) return;
        lastProblem = '';
        const status = this.expiryStatus();
        log(
          status === 'ok' ? 'info' : 'warn',
          `TLS files changed: now serving the certificate of ${this.subject}, valid until ${this.notAfter.toISOString()} (${status})`,
        );
      } catch (err) {
        const message = (err as Error).message;
        if (message !== lastProblem) log('error', `TLS files changed but are not served, the previous ones are kept: ${message}`);
        lastProblem = message;
      }
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private secureContext(): SecureContextOptions {
    return secureContextOf(this.material);
  }
}

function secureContextOf(m: TlsMaterial): SecureContextOptions {
  return { cert: m.cert, key: m.key, ...(m.clientCa ? { ca: m.clientCa } : {}) };
}
