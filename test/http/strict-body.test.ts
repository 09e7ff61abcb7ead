/**
 * A compliance record must be exactly what was sent: a body that is not UTF-8, that names a member twice, or
 * that declares another charset is refused in the one error body, and nothing is sealed. A body refused once
 * read whole leaves the client's connection open for its next request; one too large to read closes it.
 */
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../src/http/app.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/http/json-depth.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
let agent: { agent_id: string; token: string };
beforeAll(async () => {
  h = await engineHarness();
  await h.publishRegime('expansion');
  agent = await h.registerAgent();
});
afterAll(async () => h?.close());

const send = (payload: Buffer | string, contentType = 'application/json') =>
  h.app.inject({
    method: 'POST',
    url: '/engine/authorize',
    payload,
    headers: { authorization: `Bearer ${agent.token}`, 'content-type': contentType },
  });

async function expectNothingSealed(): Promise<void> {
  expect((await h.call('GET', `/engine/traces?agent_id=${agent.agent_id}`)).json().count).toBe(0);
}

function expectRefused(res: LightMyRequestResponse, status: number, code: string, detail: RegExp): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json()).toMatchObject({ code });
  expect(res.json().detail).toMatch(detail);
  expect(res.headers['x-request-id']).toBeTruthy();
}

describe('strict request bodies', () => {
  it('invalid UTF-8 (a 0xFF byte before "AAPL") is 422 invalid_json, not an asset "\\uFFFDAAPL"', async () => {
    const text = JSON.stringify(h.order(agent.agent_id, { asset: '@@AAPL' }));
    const bytes = Buffer.from(text, 'utf8');
    const at = bytes.indexOf('@@AAPL');
    bytes[at] = 0xff;
    bytes[at + 1] = 0x41; // the asset's bytes are now FF 41 41 41 50 4C
    expectRefused(await send(bytes), 422, 'invalid_json', /not valid UTF-8/);
    // An overlong encoding and a lone surrogate encoded in UTF-8 are invalid too.
    for (const bad of [
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
    ]) {
      const b = Buffer.concat([Buffer.from(text.slice(0, -1)), Buffer.from(',"x":"'), Buffer.from(bad), Buffer.from('"}')]);
      expectRefused(await send(b), 422, 'invalid_json', /not valid UTF-8/);
    }
    await expectNothingSealed();
  });

  it('a duplicated member name is 422 invalid_json naming it (quantity 1 then 7 is not sealed as 7)', async () => {
    const order = h.order(agent.agent_id, { quantity: 1, limit_price: 190, notional: 190 });
    const text = JSON.stringify(order).replace('"quantity":1', '"quantity":1,"quantity":7');
    expectRefused(await send(text), 422, 'invalid_json', /names quantity more than once/);
    const nested = JSON.stringify(h.order(agent.agent_id, { regulatory: { jurisdiction: 'EU' } })).replace(
      '"jurisdiction":"EU"',
      '"jurisdiction":"EU","jurisdiction":"US"',
    );
    expectRefused(await send(nested), 422, 'invalid_json', /names regulatory\.jurisdiction more than once/);
    await expectNothingSealed();
  });

  it('escaped lone surrogates ("\\ud800") are 422 validation_failed listing every field that holds one', async () => {
    const text = JSON.stringify(
      h.order(agent.agent_id, { asset: 'XSURR', heartbeat: { sequence_id: 1, timestamp_ms: 1, regime_id: 0, mta_ref: 'YSURR', signature: 'x' } }),
    )
      .replace('XSURR', 'A\\ud800B')
      .replace('YSURR', '\\udc00');
    const res = await send(text);
    expectRefused(res, 422, 'validation_failed', /invalid/);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['asset', 'heartbeat.mta_ref']);
    expect(res.json().errors[0].message).toMatch(/lone UTF-16 surrogate/);
    await expectNothingSealed();
  });

  it('a declared charset other than UTF-8 is 415 unsupported_media_type; utf-8 in any spelling is read', async () => {
    const text = JSON.stringify(h.order(agent.agent_id));
    expectRefused(await send(Buffer.from(text, 'utf16le'), 'application/json; charset=utf-16'), 415, 'unsupported_media_type', /charset=utf-16/);
    expectRefused(await send(Buffer.from(text, 'latin1'), 'application/json; charset=ISO-8859-1'), 415, 'unsupported_media_type', /charset=iso-8859-1/);
    expectRefused(await send(text, 'application/json;charset=latin1'), 415, 'unsupported_media_type', /charset=latin1/);
    await expectNothingSealed();
    for (const ct of ['application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'application/json;charset=utf8']) {
      const res = await send(JSON.stringify(h.order(agent.agent_id)), ct);
      expect(res.statusCode, `${ct}: ${res.body}`).toBe(200);
    }
  });

  it('non-ASCII text sent as UTF-8 is sealed exactly', async () => {
    const res = await send(
      JSON.stringify(h.order(agent.agent_id, { asset: 'NESN.SW', regulatory: { jurisdiction: 'CH', mifid_decision_maker: 'Zoë Müller' } })),
    );
    expect(res.statusCode, res.body).toBe(200);
    const trace = (await h.call('GET', `/engine/trace/${res.json().trace_id}`)).json();
    expect(trace.regulatory.mifid_decision_maker).toBe('Zoë Müller');
    // An escaped surrogate pair is one character, sealed as such.
    const pair = await send(JSON.stringify(h.order(agent.agent_id, { asset: 'XSURR' })).replace('XSURR', 'EMOJI\\ud83d\\ude00'));
    expect(pair.statusCode, pair.body).toBe(200);
    expect((await h.call('GET', `/engine/trace/${pair.json().trace_id}`)).json().execution.asset).toBe('EMOJI\u{1F600}');
  });

  it(`nesting deeper than ${MAX_JSON_DEPTH} levels is 422 invalid_json before the parse; brackets inside strings do not count`, async () => {
    const deep = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;
    const text = (extra: string) => JSON.stringify(h.order(agent.agent_id, { asset: 'DEEP' })).replace('"asset":"DEEP"', `"asset":"DEEP","extra":${extra}`);
    const sealed = async () => (await h.call('GET', `/engine/traces?agent_id=${agent.agent_id}`)).json().count as number;
    const before = await sealed();
    // The order object is one level: a value nested MAX_JSON_DEPTH deep inside it is one level too many.
    expectRefused(await send(text(deep(MAX_JSON_DEPTH))), 422, 'invalid_json', new RegExp(`more than ${MAX_JSON_DEPTH} levels`));
    expectRefused(await send(text(deep(500_000))), 422, 'invalid_json', /levels deep/);
    expect(await sealed()).toBe(before);
    // One level less reaches the schema, which refuses the unknown member instead.
    const shallower = await send(text(deep(MAX_JSON_DEPTH - 1)));
    expect(shallower.statusCode).toBe(422);
    expect(shallower.json().code).toBe('validation_failed');
    expect(nestsDeeperThan(`{"a":"${'['.repeat(1000)}"}`, 2)).toBe(false);
    // Escaped backslashes before a closing quote: the strings end there, so the brackets after them count.
    expect(nestsDeeperThan(String.raw`{"a\\":"\\","b":[[[]]]}`, 4)).toBe(false);
    expect(nestsDeeperThan(String.raw`{"a\\":"\\","b":[[[]]]}`, 3)).toBe(true);
    expect(nestsDeeperThan(String.raw`"\\"[[`, 1)).toBe(true);
    expect(nestsDeeperThan(String.raw`"\"[["`, 0)).toBe(false);
  });
});

describe('the connection of a refused body', () => {
  /** Writes `raw` on one new connection to the listening app; resolves with all it read once the server ends it or `until` holds. */
  async function exchange(raw: string, until: (text: string) => boolean): Promise<{ text: string; closed: boolean }> {
    const address = h.app.server.address() as AddressInfo;
    const socket = net.connect(address.port, '127.0.0.1');
    let text = '';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(false), 5000);
      const finish = (closed: boolean): void => {
        clearTimeout(timer);
        socket.destroy();
        resolve({ text, closed });
      };
      socket.on('data', (d: Buffer) => {
        text += d.toString('latin1');
        if (until(text)) finish(false);
      });
      socket.on('end', () => finish(true));
      socket.on('error', reject);
      socket.write(raw);
    });
  }
  const statuses = (text: string): string[] => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1] as string);

  it('stays open for the next request after a body read whole and refused, and closes after one too large to read', async () => {
    if (!h.app.server.listening) await h.app.listen({ port: 0, host: '127.0.0.1' });
    const bad = '{"agent_id": ';
    const twoRequests =
      `POST /engine/authorize HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${agent.token}\r\nContent-Type: application/json\r\nContent-Length: ${bad.length}\r\n\r\n${bad}` +
      'GET /engine/health HTTP/1.1\r\nHost: x\r\n\r\n';
    const kept = await exchange(twoRequests, (t) => statuses(t).length === 2 && /\r\n\r\n\{[^]*\}\s*$/.test(t));
    expect(statuses(kept.text)).toEqual(['422', '200']);
    expect(kept.text).toContain('"code":"invalid_json"');
    expect(kept.text.split('HTTP/1.1 200')[0]).not.toMatch(/^connection: close/im);

    const tooLarge = `POST /engine/authorize HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${agent.token}\r\nContent-Type: application/json\r\nContent-Length: ${BODY_LIMIT_BYTES + 1}\r\n\r\n{`;
    const closed = await exchange(tooLarge, () => false);
    expect(statuses(closed.text)).toEqual(['413']);
    expect(closed.text).toMatch(/^connection: close/im);
    expect(closed.closed).toBe(true);
  });
});
