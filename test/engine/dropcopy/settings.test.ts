/**
 * The FIX_DROPCOPY_* settings (src/core/config.ts): all or nothing, every missing one named at once; TLS files
 * checked readable at start; `config.dropCopy` the session's settings, or null.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/core/config.js';
import { isTradesealError } from '../../../src/core/errors.js';

const base = { FIX_DROPCOPY_ROLE: 'initiator', FIX_DROPCOPY_PORT: '9880', FIX_DROPCOPY_SENDER_COMP_ID: 'DESK', FIX_DROPCOPY_TARGET_COMP_ID: 'XNAS' };

function failure(env: Record<string, string>): { message: string; fields: string[] } {
  try {
    loadConfig(env);
  } catch (e) {
    if (!isTradesealError(e)) throw e;
    expect(e.code).toBe('config_invalid');
    return { message: e.message, fields: (e.errors ?? []).map((x) => x.field) };
  }
  throw new Error('the settings were accepted');
}

describe('FIX_DROPCOPY_* settings', () => {
  it('leave the session off when none is set', () => {
    expect(loadConfig({}).dropCopy).toBeNull();
  });

  it("give the session's settings, with the defaults of host, heartbeat, reconnection, Logon timeout, allow-list and connection caps", () => {
    expect(loadConfig(base).dropCopy).toEqual({
      role: 'initiator',
      host: '127.0.0.1',
      port: 9880,
      senderCompId: 'DESK',
      targetCompId: 'XNAS',
      heartbeatS: 30,
      reconnectS: 5,
      reconnectMaxS: 60,
      logonTimeoutS: 10,
      allow: null,
      maxConnections: 64,
      maxConnectionsPerAddress: 4,
      tls: null,
    });
    expect(loadConfig({ ...base, FIX_DROPCOPY_MAX_CONNECTIONS: '8', FIX_DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS: '2' }).dropCopy).toMatchObject({
      maxConnections: 8,
      maxConnectionsPerAddress: 2,
    });
    expect(failure({ ...base, FIX_DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS: '0' }).fields).toEqual(['FIX_DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS']);
  });

  it('take a Logon timeout, a backoff bound (never below the first wait) and an allow-list of addresses and ranges', () => {
    expect(
      loadConfig({ ...base, FIX_DROPCOPY_LOGON_TIMEOUT_S: '3', FIX_DROPCOPY_RECONNECT_MAX_S: '120', FIX_DROPCOPY_ALLOW: '203.0.113.7, 198.51.100.0/24,::1' })
        .dropCopy,
    ).toMatchObject({ logonTimeoutS: 3, reconnectMaxS: 120, allow: ['203.0.113.7', '198.51.100.0/24', '::1'] });
    expect(loadConfig({ ...base, FIX_DROPCOPY_RECONNECT_S: '30', FIX_DROPCOPY_RECONNECT_MAX_S: '10' }).dropCopy).toMatchObject({
      reconnectS: 30,
      reconnectMaxS: 30,
    });
    expect(failure({ ...base, FIX_DROPCOPY_LOGON_TIMEOUT_S: '0' }).fields).toEqual(['FIX_DROPCOPY_LOGON_TIMEOUT_S']);
    expect(failure({ ...base, FIX_DROPCOPY_ALLOW: 'exchange.example' }).fields).toEqual(['FIX_DROPCOPY_ALLOW']);
  });

  it('refuse a role without its port and CompIDs, naming each one missing', () => {
    const { message, fields } = failure({ FIX_DROPCOPY_ROLE: 'acceptor' });
    expect(fields).toEqual(['FIX_DROPCOPY_PORT', 'FIX_DROPCOPY_SENDER_COMP_ID', 'FIX_DROPCOPY_TARGET_COMP_ID']);
    expect(message).toContain('FIX_DROPCOPY_PORT=(unset)');
  });

  it('refuse session settings without a role', () => {
    const { message, fields } = failure({ FIX_DROPCOPY_PORT: '9880', FIX_DROPCOPY_TARGET_COMP_ID: 'XNAS' });
    expect(fields).toEqual(['FIX_DROPCOPY_ROLE']);
    expect(message).toContain('FIX_DROPCOPY_PORT, FIX_DROPCOPY_TARGET_COMP_ID are set');
  });

  it('refuse a bad role, port or CompID with its expected form', () => {
    expect(failure({ ...base, FIX_DROPCOPY_ROLE: 'both' }).fields).toEqual(['FIX_DROPCOPY_ROLE']);
    expect(failure({ ...base, FIX_DROPCOPY_PORT: '0' }).fields).toEqual(['FIX_DROPCOPY_PORT']);
    expect(failure({ ...base, FIX_DROPCOPY_SENDER_COMP_ID: 'DE SK' }).fields).toEqual(['FIX_DROPCOPY_SENDER_COMP_ID']);
    expect(failure({ ...base, FIX_DROPCOPY_TARGET_COMP_ID: 'A=B' }).fields).toEqual(['FIX_DROPCOPY_TARGET_COMP_ID']);
  });

  it('take TLS files that can be read, and refuse a certificate without its key or a file that cannot be read', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dropcopy-tls-'));
    try {
      const cert = path.join(dir, 'cert.pem');
      const key = path.join(dir, 'key.pem');
      fs.writeFileSync(cert, 'x');
      fs.writeFileSync(key, 'x');
      expect(loadConfig({ ...base, FIX_DROPCOPY_TLS_CERT: cert, FIX_DROPCOPY_TLS_KEY: key }).dropCopy?.tls).toEqual({ cert, key, ca: null });
      expect(loadConfig({ ...base, FIX_DROPCOPY_TLS_CA: cert }).dropCopy?.tls).toEqual({ cert: null, key: null, ca: cert });
      expect(failure({ ...base, FIX_DROPCOPY_TLS_CERT: cert }).fields).toEqual(['FIX_DROPCOPY_TLS_KEY']);
      const missing = failure({ ...base, FIX_DROPCOPY_TLS_CERT: cert, FIX_DROPCOPY_TLS_KEY: path.join(dir, 'nope.pem') });
      expect(missing.fields).toEqual(['FIX_DROPCOPY_TLS_KEY']);
      expect(missing.message).toContain('expected a readable PEM file');
      expect(failure({ ...base, FIX_DROPCOPY_ROLE: 'acceptor', FIX_DROPCOPY_TLS_CA: cert }).fields).toEqual(['FIX_DROPCOPY_TLS_CERT']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
