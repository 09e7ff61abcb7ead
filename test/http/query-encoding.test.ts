/**
 * Query strings read strictly (src/http/query-encoding.ts): a parameter whose percent-encoding is not UTF-8 is
 * named; UTF-8 escapes, `+` and a percent-encoded `%` pass.
 */
import { describe, expect, it } from 'vitest';
import { malformedQueryParameters } from '../../src/http/query-encoding.js';

describe('query strings read strictly', () => {
  it.each(['', '/engine/traces', '/engine/traces?search=%25', '/engine/traces?search=a+b&limit=5', '/x?q=%E2%82%AC&flag', '/x?q=%F0%9F%98%80'])(
    'accepts %j',
    (url) => {
      expect(malformedQueryParameters(url)).toEqual([]);
    },
  );

  it.each([
    ['/engine/traces?limit=5&search=x%ED%A0%80y', 'search'],
    ['/engine/traces?search=%FF', 'search'],
    ['/engine/traces?search=100%', 'search'],
    ['/engine/traces?search=%zz', 'search'],
    ['/engine/traces?%FF=1', 'querystring'],
  ])('refuses %j, naming %s', (url, field) => {
    expect(malformedQueryParameters(url)).toEqual([{ field, message: 'is not percent-encoded UTF-8 (a malformed escape, or the bytes of a lone surrogate)' }]);
  });
});
