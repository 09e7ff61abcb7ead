/**
 * HTTPS of `startServer` (TLS_CERT, TLS_KEY, TLS_CLIENT_CA, TLS_CN_MAP), with certificates made at test time
 * by openssl and real HTTPS requests:
 * - bad TLS settings stop the start with one `config_invalid` naming each setting, its file and the fault;
 * - health's `cert_expiry_status` is `ok`, `expiring` (10 days left) or `expired` from the served
 *   certificate, on both services;
 * - a renewed certificate written over the files is served without a restart, and broken files are not.
 */
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, loadConfig, type Config } from '../../src/core/config.js';
import { newTokenSecret } from '../../src/engine/store/tokens.js';
import { TradesealError } from '../../src/core/errors.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { makeCa, type IssuedCertificate, type TestCa } from '../helpers/certificates.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { httpsRequest } from '../helpers/https-client.js';

let dir: string;
let store: TestStore;
let ca: TestCa;
let base: Config;
const owner = newTokenSecret();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradeseal-tls-'));
  ca = makeCa(dir, 'Ops CA');
  store = await testStore();
  base = configWith({ databaseUrl: store.url, logLevel: 'silent', engineOwnerToken: owner, port: 0 });
});

afterAll(async () => {
  await store?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs `fn` against a server started with `config`, then closes it. */
async function withServer<T>(config: Partial<Config>, fn: (server: RunningServer) => Promise<T>, options: { tlsReloadMs?: number } = {}): Promise<T> {
  const server = await startServer({ ...base, ...config }, options);
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

const tlsOf = (c: IssuedCertificate): Partial<Config> => ({ tlsCert: c.certPath, tlsKey: c.keyPath });

describe('TLS settings', () => {
  it('are paths, resolved once at start', () => {
    const config = loadConfig({ TLS_CERT: 'certs/server.pem', TLS_KEY: 'certs/server.key', TLS_CLIENT_CA: 'certs/ca.pem', TLS_CN_MAP: 'certs/cn.json' });
    expect([config.tlsCert, config.tlsKey, config.tlsClientCa, config.tlsCnMap]).toEqual(
      ['server.pem', 'server.key', 'ca.pem', 'cn.json'].map((f) => path.resolve('certs', f)),
    );
    expect(loadConfig({}).tlsCert).toBeNull();
  });

  it('stop the start with config_invalid naming each setting, its file and what is wrong', async () => {
    const good = ca.server('good');
    const other = ca.server('other');
    const leaf = ca.client('leaf', 'not-a-ca');
    const missing = path.join(dir, 'missing.pem');
    const notJson = path.join(dir, 'cn-broken.json');
    fs.writeFileSync(notJson, '{"host": ');
    const badMap = path.join(dir, 'cn-bad.json');
    fs.writeFileSync(badMap, JSON.stringify({ 'trading-host-1': 'agent-7' }));

    const cases: Array<[string, Partial<Config>, Array<{ field: string; message: string }>]> = [
      ['a certificate without its key', { tlsCert: good.certPath }, [{ field: 'TLS_KEY', message: 'is unset while TLS_CERT is set: set both or neither' }]],
      ['a key without its certificate', { tlsKey: good.keyPath }, [{ field: 'TLS_CERT', message: 'is unset while TLS_KEY is set: set both or neither' }]],
      [
        'client certificates without HTTPS',
        { tlsClientCa: ca.certPath },
        [{ field: 'TLS_CLIENT_CA', message: 'needs TLS_CERT and TLS_KEY: client certificates are asked for over HTTPS only' }],
      ],
      [
        'a CN map without client certificates',
        { ...tlsOf(good), tlsCnMap: badMap },
        [
          { field: 'TLS_CN_MAP', message: 'needs TLS_CLIENT_CA: without client certificates there are no common names to map' },
          { field: 'TLS_CN_MAP', message: `${badMap}: "trading-host-1": "agent-7" is not an agent_id (a UUID)` },
        ],
      ],
      ['a file that is not there', { tlsCert: missing, tlsKey: good.keyPath }, [{ field: 'TLS_CERT', message: `cannot read ${missing} (ENOENT)` }]],
      [
        'the key of another certificate',
        { tlsCert: good.certPath, tlsKey: other.keyPath },
        [{ field: 'TLS_KEY', message: `the key in ${other.keyPath} does not belong to the certificate in ${good.certPath}` }],
      ],
      [
        'certificate and key swapped',
        { tlsCert: good.keyPath, tlsKey: good.certPath },
        [
          { field: 'TLS_CERT', message: `${good.keyPath} holds no PEM certificate (-----BEGIN CERTIFICATE-----)` },
          { field: 'TLS_KEY', message: `${good.certPath} holds no unencrypted PEM private key` },
        ],
      ],
      [
        'a client CA file holding a leaf certificate',
        { ...tlsOf(good), tlsClientCa: leaf.certPath },
        [{ field: 'TLS_CLIENT_CA', message: `${leaf.certPath}: the certificate of CN=not-a-ca is not a CA certificate (basicConstraints CA:TRUE)` }],
      ],
      [
        'a CN map that is not JSON',
        { ...tlsOf(good), tlsClientCa: ca.certPath, tlsCnMap: notJson },
        [{ field: 'TLS_CN_MAP', message: `${notJson} is not valid JSON` }],
      ],
    ];
    for (const [name, config, errors] of cases) {
      const err = await startServer({ ...base, ...config }).then(
        async (s) => {
          await s.close();
          return null;
        },
        (e: unknown) => e,
      );
      expect(err, name).toBeInstanceOf(TradesealError);
      expect((err as TradesealError).code, name).toBe('config_invalid');
      expect((err as TradesealError).errors, name).toEqual(errors);
      for (const e of errors) expect((err as TradesealError).message, name).toContain(`${e.field} ${e.message}`);
    }
  });
});

describe('HTTPS and cert_expiry_status', () => {
  const cases: Array<[string, () => IssuedCertificate, 'ok' | 'expiring' | 'expired']> = [
    ['a year left', () => ca.server('year'), 'ok'],
    ['10 days left', () => ca.server('ten-days', { days: 10 }), 'expiring'],
    ['a notAfter in the past', () => ca.server('expired', { start: '20200101000000Z', end: '20200201000000Z' }), 'expired'],
  ];
  for (const [name, make, status] of cases) {
    it(`reports ${status} for a server certificate with ${name}, on both services`, async () => {
      const cert = make();
      await withServer(tlsOf(cert), async (server) => {
        expect(server.url).toMatch(/^https:/);
        for (const url of ['/engine/health', '/v1/health']) {
          // An expired certificate fails the client's own check: read it without (as a monitor would with -k).
          const res = await httpsRequest(`${server.url}${url}`, status === 'expired' ? { insecure: true } : { ca: ca.cert });
          expect(res.json(), url).toMatchObject({ db_ok: true, cert_expiry_status: status });
          expect(res.serverCertificate.subject.CN).toBe('localhost');
        }
        if (status === 'expired') {
          await expect(httpsRequest(`${server.url}/v1/health`, { ca: ca.cert })).rejects.toThrow(/certificate has expired/);
        }
      });
    });
  }

  it('without TLS_CLIENT_CA asks for no client certificate: the token alone opens /engine routes', async () => {
    await withServer(tlsOf(ca.server('plain')), async (server) => {
      const res = await httpsRequest(`${server.url}/engine/admin/tokens`, { ca: ca.cert }, { token: owner });
      expect(res.status).toBe(200);
      const anonymous = await httpsRequest(`${server.url}/engine/admin/tokens`, { ca: ca.cert });
      expect([anonymous.status, anonymous.json().code]).toEqual([401, 'unauthorized']);
    });
  });
});

describe('certificate renewal', () => {
  it('serves a renewed certificate written over the files without a restart, and keeps the old one while the files do not match', async () => {
    const served = ca.server('served', { days: 10 });
    const renewed = ca.server('renewed', { days: 365 });
    const stray = ca.server('stray');
    const health = async (server: RunningServer): Promise<{ status: unknown; serial: string }> => {
      const res = await httpsRequest(`${server.url}/v1/health`, { ca: ca.cert });
      return { status: res.json().cert_expiry_status, serial: res.serverCertificate.serialNumber };
    };
    const settle = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

    await withServer(
      { ...tlsOf(served), tlsClientCa: ca.certPath },
      async (server) => {
        const before = await health(server);
        expect(before.status).toBe('expiring');

        // A key that does not belong to the certificate: not served, the old pair stays in force.
        fs.writeFileSync(served.keyPath, stray.key);
        await settle(400);
        expect(await health(server)).toEqual(before);

        fs.writeFileSync(served.certPath, renewed.cert);
        fs.writeFileSync(served.keyPath, renewed.key);
        let after = await health(server);
        for (let i = 0; i < 50 && after.status !== 'ok'; i++) {
          await settle(100);
          after = await health(server);
        }
        expect(after.status).toBe('ok');
        // The request that first saw `ok` may have shaken hands just before the swap: a new connection gets the new certificate.
        after = await health(server);
        expect(after.serial).not.toBe(before.serial);
        expect(after.serial).toBe(new X509Certificate(renewed.cert).serialNumber);
        // Client certificates are still asked for and verified against TLS_CLIENT_CA after the swap.
        const anonymous = await httpsRequest(`${server.url}/engine/regime`, { ca: ca.cert });
        expect(anonymous.json().code).toBe('client_certificate_required');
        const agent = ca.client('renewal-agent', 'desk-1');
        const verified = await httpsRequest(`${server.url}/engine/regime`, { ca: ca.cert, cert: agent.cert, key: agent.key });
        expect([verified.status, verified.json().code]).toEqual([401, 'unauthorized']);
      },
      { tlsReloadMs: 100 },
    );
  });
});
