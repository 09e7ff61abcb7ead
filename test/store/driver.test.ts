/** The driver's type choices, on the test database: int8 as exact JS numbers or an error, numeric as text. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TradesealError } from '../../src/core/errors.js';
import { parseInt8 } from '../../src/store/driver.js';
import { testStore, type TestStore } from '../helpers/db.js';

describe('parseInt8', () => {
  it.each([
    ['0', 0],
    ['-42', -42],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
    ['-9007199254740991', Number.MIN_SAFE_INTEGER],
  ])('parses %s exactly', (text, value) => {
    expect(parseInt8(text)).toBe(value);
  });

  it.each(['9007199254740992', '-9007199254740992', '9223372036854775807'])('refuses %s, which a number cannot hold exactly', (text) => {
    expect(() => parseInt8(text)).toThrow(TradesealError);
    expect(() => parseInt8(text)).toThrow(/outside the range a JS number holds exactly/);
  });
});

describe('queries through the driver', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await testStore();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('returns count(*) and other int8 values as numbers, int8 arrays included', async () => {
    const [row] = await store.sql`select count(*) as c, 9007199254740991::int8 as max, array[1, 2]::int8[] as arr from generate_series(1, 3)`;
    expect(row).toEqual({ c: 3, max: Number.MAX_SAFE_INTEGER, arr: [1, 2] });
  });

  it('fails the query, not the connection, on an int8 beyond 2^53', async () => {
    const error = await store.sql`select 9007199254740993::int8 as big`.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TradesealError);
    expect(await store.sql`select 9007199254740993::int8::text as big`).toEqual([{ big: '9007199254740993' }]);
  });

  it('sends numbers, bigints and digit strings as int8 parameters', async () => {
    // The driver's parameter types omit bigint, which its serializer for int8 accepts all the same.
    const big = 8n as unknown as number;
    const [row] = await store.sql`select ${7}::int8 + ${big}::int8 + ${'9'}::int8 as total`;
    expect(row).toEqual({ total: 24 });
  });

  it('keeps numeric as an exact decimal string', async () => {
    expect(await store.sql`select 0.1::numeric + 0.2::numeric as sum`).toEqual([{ sum: '0.3' }]);
  });
});
