/** Settings: read once, validated, every bad one reported together with its expected form. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/core/config.js';
import { TradesealError } from '../src/core/errors.js';

describe('loadConfig', () => {
  it('uses the documented defaults when nothing is set', () => {
    const c = loadConfig({});
    expect(c.databaseUrl).toBeNull();
    expect(c.port).toBe(8080);
    expect(c.host).toBe('127.0.0.1');
    expect(c.logLevel).toBe('info');
    expect(c.home).toMatch(/\.tradeseal$/);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads valid settings', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/x', PORT: '9000', LOG_LEVEL: 'warn', TRADESEAL_HOME: '/tmp/ts-home' });
    expect(c).toMatchObject({ databaseUrl: 'postgres://u:p@db:5432/x', port: 9000, logLevel: 'warn', home: '/tmp/ts-home' });
  });

  it('lists every bad setting in one error, each with its expected form', () => {
    let err: unknown;
    try {
      loadConfig({ DATABASE_URL: 'mysql://x', PORT: '80a', LOG_LEVEL: 'loud' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TradesealError);
    const e = err as TradesealError;
    expect(e.code).toBe('config_invalid');
    expect(e.errors?.map((x) => x.field)).toEqual(['DATABASE_URL', 'PORT', 'LOG_LEVEL']);
    expect(e.message).toContain('PORT="80a" (expected an integer 0-65535)');
    expect(e.message).toContain('LOG_LEVEL="loud" (expected fatal|error|warn|info|debug|trace|silent)');
  });

  it('never repeats a secret in its error message', () => {
    let message = '';
    try {
      loadConfig({ FRED_API_KEY: 'abcdefgh-secret-key', ENGINE_OWNER_TOKEN: 'tse_short', DATABASE_URL: 'mysql://u:hunter2@h/db' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('FRED_API_KEY=(value hidden)');
    expect(message).toContain('ENGINE_OWNER_TOKEN=(value hidden)');
    expect(message).not.toMatch(/secret-key|tse_short|hunter2/);
  });

  it('refuses ports out of range', () => {
    expect(() => loadConfig({ PORT: '65536' })).toThrow(/PORT/);
  });

  it('bounds every phase of a request and caps connections by default, and refuses a headers bound above the request bound', () => {
    expect(loadConfig({})).toMatchObject({
      httpHeadersTimeoutMs: 5000,
      httpRequestTimeoutMs: 10_000,
      httpKeepAliveTimeoutMs: 5000,
      httpMaxConnections: 10_000,
      httpMaxConnectionsPerAddress: 256,
      trustProxy: null,
    });
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '20000' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS="20000" \(expected at most HTTP_REQUEST_TIMEOUT_MS, 10000\)/,
    );
    expect(loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '20000' }).httpHeadersTimeoutMs).toBe(20_000);
  });

  it('reads TRUST_PROXY as addresses and CIDR ranges, and refuses anything else', () => {
    expect(loadConfig({ TRUST_PROXY: '10.0.0.5, 10.1.0.0/16,fd00::/8' }).trustProxy).toEqual(['10.0.0.5', '10.1.0.0/16', 'fd00::/8']);
    for (const bad of ['proxy.example.com', '10.0.0.0/33', 'fd00::/129', '10.0.0.1/8/8', '10.0.0.256', ' , ']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
  });
});
