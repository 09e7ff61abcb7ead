/**
 * "Did you mean": `suggestions` ranks a name the typed words start or abbreviate (a dropped plural, a word
 * left out, a name stopped early) before one a few letters away, and offers only the best kind of match; `closest` ranks one-piece names (time zones) by edit distance.
 */
import { describe, expect, it } from 'vitest';
import { closest, suggestions } from '../../src/cli/closest.js';

const COMMANDS = [
  'config set',
  'config show',
  'demo',
  'engine agents list',
  'engine audit-log',
  'engine erase',
  'engine log head',
  'engine log verify',
  'engine orphans',
  'engine pending',
  'engine tokens issue',
  'engine tokens list',
  'engine traces list',
  'engine traces show',
  'pipeline run',
  'pipeline status',
  'signals history',
  'signals keys issue',
  'signals keys list',
  'serve',
];
const FLAGS = ['agent-id', 'columns', 'csv', 'from', 'full-ids', 'json', 'jsonl', 'limit', 'search', 'status', 'to', 'wide'];

describe('suggestions', () => {
  it.each([
    ['engine orphan', ['engine orphans']],
    ['engine tokens', ['engine tokens list', 'engine tokens issue']],
    ['traces list', ['engine traces list']],
    ['engine trace show', ['engine traces show']],
    ['engine list', ['engine agents list', 'engine tokens list', 'engine traces list']],
    ['signals key', ['signals keys list', 'signals keys issue']],
    ['pipline run', ['pipeline run']],
    ['engine tokns list', ['engine tokens list']],
    ['xyzzy', []],
    // A short word is offered only a slip away: `foo` shares one letter with `demo`, `dmo` is `demo`.
    ['foo', []],
    ['dmo', ['demo']],
  ])('command %j → %j', (typed, expected) => {
    expect(suggestions(typed, COMMANDS, { separator: ' ' })).toEqual(expected);
  });

  it.each([
    ['limt', ['limit']],
    ['lim', ['limit']],
    ['full-id', ['full-ids']],
    ['agent', ['agent-id']],
    ['colums', ['columns']],
    ['ids', ['full-ids']],
    ['verbose', []],
  ])('flag %j → %j', (typed, expected) => {
    expect(suggestions(typed, FLAGS, { separator: '-' })).toEqual(expected);
  });
});

describe('closest', () => {
  it('ranks one-piece names by edit distance', () => {
    expect(closest('Europe/Londn', ['Europe/London', 'Europe/Lisbon', 'Asia/Tokyo'])).toEqual(['Europe/London', 'Europe/Lisbon']);
  });
});
