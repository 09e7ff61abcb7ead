/**
 * The webhook target guard on whole URLs: schemes, numeric host forms (decimal, octal, hex, short), IPv6
 * literals, trailing dots, refused names, names resolving (through an injected resolver) to refused
 * addresses, one bad address among good ones, WEBHOOK_ALLOW_PRIVATE, and the pinned lookup that makes a
 * connection use the checked address.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTarget, pinnedLookup, type Resolve, type ResolvedAddress } from '../../../src/signals/webhooks/target-guard.js';

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

/** A resolver from a fixed table; an unknown name fails like getaddrinfo. */
const DNS: Record<string, ResolvedAddress[]> = {
  'hooks.example.com': [v4('93.184.216.34'), v6('2606:2800:220:1::1')],
  'internal.example.com': [v4('10.1.2.3')],
  'mixed.example.com': [v4('93.184.216.34'), v4('127.0.0.1')],
  'mixed6.example.com': [v4('93.184.216.34'), v6('::1')],
  'mapped.example.com': [v6('::ffff:127.0.0.1')],
  'meta.example.com': [v4('169.254.169.254')],
  'meta6.example.com': [v6('fd00:ec2::254')],
  'cgnat.example.com': [v4('100.64.1.1')],
  'linklocal6.example.com': [v6('fe80::1')],
  'ula.example.com': [v6('fd12::1')],
  'zero.example.com': [v4('0.0.0.0')],
  'empty.example.com': [],
  localhost: [v4('127.0.0.1'), v6('::1')],
};
const resolve: Resolve = async (host) => {
  const a = DNS[host];
  if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return a;
};

type Expectation = 'ok' | RegExp;
const TABLE: Array<[string, Expectation]> = [
  ['https://hooks.example.com/tradeseal', 'ok'],
  ['http://hooks.example.com:8443/x?y=1', 'ok'],
  ['https://hooks.example.com./x', 'ok'],
  ['HTTPS://HOOKS.EXAMPLE.COM/x', 'ok'],
  ['https://203.0.113.7/hook', 'ok'],
  ['https://[2606:4700:4700::1111]/hook', 'ok'],
  ['https://[::ffff:8.8.8.8]/', 'ok'],
  // Schemes and form
  ['ftp://hooks.example.com/', /scheme ftp: is not allowed/],
  ['file:///etc/passwd', /scheme file: is not allowed/],
  ['gopher://127.0.0.1:25/', /scheme gopher: is not allowed/],
  ['javascript:alert(1)', /scheme javascript: is not allowed/],
  ['hooks.example.com/x', /absolute http/],
  ['/relative', /absolute http/],
  ['http://', /absolute http/],
  ['http://1.2.3.4.5/', /absolute http/],
  ['http://08.0.0.1/', /absolute http/],
  // Loopback in every spelling
  ['http://127.0.0.1/', /127\.0\.0\.1 is a loopback address/],
  ['http://127.0.0.1./', /127\.0\.0\.1 is a loopback address/],
  ['http://2130706433/', /127\.0\.0\.1 is a loopback address/],
  ['http://0177.0.0.1/', /127\.0\.0\.1 is a loopback address/],
  ['http://0x7f.0.0.1/', /127\.0\.0\.1 is a loopback address/],
  ['http://0x7f000001/', /127\.0\.0\.1 is a loopback address/],
  ['http://017700000001/', /127\.0\.0\.1 is a loopback address/],
  ['http://127.1/', /127\.0\.0\.1 is a loopback address/],
  ['http://%31%32%37.0.0.1/', /127\.0\.0\.1 is a loopback address/],
  ['http://[::1]/', /::1 is a loopback address/],
  ['http://[0:0:0:0:0:0:0:1]:8080/', /::1 is a loopback address/],
  ['http://[::ffff:127.0.0.1]/', /loopback/],
  ['http://[::ffff:7f00:1]/', /loopback/],
  ['http://[::127.0.0.1]/', /loopback/],
  ['http://localhost/', /localhost is a loopback name/],
  ['http://localhost./', /localhost is a loopback name/],
  ['http://LOCALHOST:8080/', /localhost is a loopback name/],
  ['http://api.localhost/', /api\.localhost is a loopback name/],
  // Unspecified, private, CGNAT, link-local, metadata
  ['http://0.0.0.0/', /0\.0\.0\.0 is an unspecified/],
  ['http://0/', /0\.0\.0\.0 is an unspecified/],
  ['http://[::]/', /:: is an unspecified/],
  ['http://10.0.0.1/', /private/],
  ['http://172.16.5.4/', /private/],
  ['http://192.168.0.1/', /private/],
  ['http://3232235521/', /192\.168\.0\.1 is a private address/],
  ['http://[fd00::1]/', /private/],
  ['http://[fc00::1]/', /private/],
  ['http://100.64.0.1/', /carrier-grade NAT/],
  ['http://169.254.1.1/', /link-local/],
  ['http://[fe80::1]/', /link-local/],
  ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a cloud metadata service address/],
  ['http://[fd00:ec2::254]/', /cloud metadata service address/],
  ['http://metadata.google.internal/computeMetadata/v1/', /metadata\.google\.internal is a cloud metadata service name/],
  ['http://metadata.google.internal./', /metadata\.google\.internal is a cloud metadata service name/],
  ['http://METADATA.GOOGLE.INTERNAL/', /cloud metadata service name/],
  ['http://224.0.0.1/', /multicast/],
  // Names, by every address they resolve to
  ['https://internal.example.com/', /internal\.example\.com resolves to 10\.1\.2\.3, a private address/],
  ['https://mixed.example.com/', /mixed\.example\.com resolves to 127\.0\.0\.1, a loopback address/],
  ['https://mixed6.example.com/', /resolves to ::1, a loopback address/],
  ['https://mapped.example.com/', /resolves to ::ffff:127\.0\.0\.1, a loopback address/],
  ['https://meta.example.com/', /resolves to 169\.254\.169\.254, a cloud metadata/],
  ['https://meta6.example.com/', /resolves to fd00:ec2::254, a cloud metadata/],
  ['https://cgnat.example.com/', /carrier-grade NAT/],
  ['https://linklocal6.example.com/', /link-local/],
  ['https://ula.example.com/', /private/],
  ['https://zero.example.com/', /unspecified/],
  ['https://internal.example.com./', /internal\.example\.com resolves to 10\.1\.2\.3/],
  ['https://nowhere.example.com/', /nowhere\.example\.com does not resolve \(ENOTFOUND\)/],
  ['https://empty.example.com/', /does not resolve to any address/],
];

describe('checkTarget', () => {
  it.each(TABLE)('%s', async (url, expected) => {
    const run = checkTarget(url, { allowPrivate: false, resolve });
    if (expected === 'ok') {
      await expect(run).resolves.toBeDefined();
      return;
    }
    const err = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'webhook_target_refused', status: 422, errors: [{ field: 'url' }] });
    expect((err as { errors: Array<{ message: string }> }).errors[0]!.message).toMatch(expected);
  });

  it('returns the normalised URL, the bare host and every approved address', async () => {
    const t = await checkTarget('HTTPS://Hooks.Example.COM./a?b=1', { allowPrivate: false, resolve });
    expect(t.url.href).toBe('https://hooks.example.com./a?b=1');
    expect(t.hostname).toBe('hooks.example.com');
    expect(t.addresses).toEqual(DNS['hooks.example.com']);
    const literal = await checkTarget('http://[2606:4700:4700::1111]:81/', { allowPrivate: false, resolve });
    expect(literal).toMatchObject({ hostname: '2606:4700:4700::1111', addresses: [v6('2606:4700:4700::1111')] });
  });

  it('allows private targets with WEBHOOK_ALLOW_PRIVATE, but still only http(s)', async () => {
    for (const url of ['http://127.0.0.1:9/', 'http://localhost/', 'http://169.254.169.254/', 'https://internal.example.com/', 'http://2130706433/']) {
      await expect(checkTarget(url, { allowPrivate: true, resolve })).resolves.toBeDefined();
    }
    await expect(checkTarget('ftp://127.0.0.1/', { allowPrivate: true, resolve })).rejects.toMatchObject({ code: 'webhook_target_refused' });
  });
});

describe('pinnedLookup', () => {
  const addresses = [v4('192.0.2.1'), v6('2001:db8::1')];
  const ask = (options: { family?: number; all?: boolean }) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family: number | undefined }>((done) => {
      pinnedLookup(addresses)('anything.example', options as never, (err, address, family) => done({ err, address, family }));
    });

  it('answers only the approved addresses, in the form the socket asks for', async () => {
    expect(await ask({})).toEqual({ err: null, address: '192.0.2.1', family: 4 });
    expect(await ask({ family: 6 })).toEqual({ err: null, address: '2001:db8::1', family: 6 });
    expect(await ask({ all: true })).toEqual({ err: null, address: addresses, family: undefined });
    expect(await ask({ all: true, family: 4 })).toEqual({ err: null, address: [addresses[0]], family: undefined });
    const none = await new Promise<NodeJS.ErrnoException | null>((done) => pinnedLookup([v4('192.0.2.1')])('x', { family: 6 }, (err) => done(err)));
    expect(none?.code).toBe('ENOTFOUND');
  });

  describe('over a real connection', () => {
    let server: http.Server;
    let port: number;
    beforeAll(async () => {
      server = http.createServer((req, res) => res.end(req.headers.host));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('connects to the checked address, whatever the name would resolve to now, with the name as Host', async () => {
      // A name that does not exist: without the pinned lookup, the request would fail to resolve.
      const body = await new Promise<string>((done, fail) => {
        const req = http.request({ host: 'rebinding.invalid', port, path: '/', lookup: pinnedLookup([v4('127.0.0.1')]) }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => done(text));
        });
        req.on('error', fail);
        req.end();
      });
      expect(body).toBe(`rebinding.invalid:${port}`);
    });
  });
});
