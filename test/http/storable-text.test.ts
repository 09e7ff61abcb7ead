/**
 * The text rule every request string passes (src/core/storable-text.ts): a NUL or a lone surrogate is refused
 * wherever it is, named as a 422 names the field; ordinary text and a surrogate pair (an emoji) pass.
 */
import { describe, expect, it } from 'vitest';
import { unstorableText } from '../../src/core/storable-text.js';
import { fieldErrors } from '../../src/core/validation.js';

const named = (value: unknown) => fieldErrors(unstorableText(value), 'body').map((e) => e.field);

describe('text a store can hold', () => {
  it.each([
    ['plain text', 'alpha-7'],
    ['a surrogate pair (one code point)', 'model \u{1F600}'],
    ['the replacement character', '\uFFFD'],
    ['other control characters', 'a\u0001b\tc'],
  ])('passes %s', (_, text) => {
    expect(unstorableText({ model_id: text, models: [{ model_id: text }] })).toEqual([]);
  });

  it.each([
    ['a NUL', 'x\u0000y', 'must not contain U+0000 (NUL), which no stored text can hold'],
    ['a lone high surrogate', 'x\uD800', 'must not contain a lone UTF-16 surrogate, which no UTF-8 text can carry'],
    ['a lone low surrogate', '\uDC00x', 'must not contain a lone UTF-16 surrogate, which no UTF-8 text can carry'],
  ])('refuses %s wherever it is, naming the field', (_, text, message) => {
    const errors = fieldErrors(unstorableText({ model_id: text, heartbeat: { mta_ref: text }, executions: [{}, { asset: text }] }), 'body');
    expect(errors).toEqual(['model_id', 'heartbeat.mta_ref', 'executions[1].asset'].map((field) => ({ field, message })));
  });

  it('refuses a member name that holds one, and a bare string as the whole part', () => {
    expect(named({ details: { 'a\u0000': 1, 'a/b': 'ok' } })).toEqual(['details.a\u0000']);
    expect(named('x\u0000')).toEqual(['body']);
  });
});
