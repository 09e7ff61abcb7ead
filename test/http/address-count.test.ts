/** The per-address connection cap's bookkeeping: which client an address is, how many it holds, who is exempt. */
import { describe, expect, it } from 'vitest';
import { AddressCount, addressKey, addressMatcher } from '../../src/core/net/address-count.js';

describe('addressKey', () => {
  it.each([
    ['10.1.2.3', '10.1.2.3'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['::FFFF:127.0.0.2', '127.0.0.2'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b:1:2::1.2.3.4', '64:ff9b:1:2::/64'],
  ])('%s counts as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});

describe('addressMatcher', () => {
  const trusted = addressMatcher(['10.0.0.5', '192.168.0.0/16', 'fd00::/8']);
  it.each([
    ['10.0.0.5', true],
    ['::ffff:10.0.0.5', true],
    ['10.0.0.6', false],
    ['192.168.44.1', true],
    ['192.169.0.1', false],
    ['fd12:3456::1', true],
    ['fe80::1', false],
    ['not an address', false],
  ])('%s is trusted: %s', (address, expected) => {
    expect(trusted(address)).toBe(expected);
  });
});

describe('AddressCount', () => {
  it('admits up to the cap per address, refuses the next, and admits again once one closes', () => {
    const count = new AddressCount(2);
    const a = count.admit('127.0.0.2');
    const b = count.admit('::ffff:127.0.0.2');
    expect([a, b]).toEqual(['127.0.0.2', '127.0.0.2']);
    expect(count.admit('127.0.0.2')).toBe(false);
    // Another address is not affected by the first one's connections.
    expect(count.admit('127.0.0.1')).toBe('127.0.0.1');
    expect(count.count('127.0.0.2')).toBe(2);
    count.release(a as string);
    expect(count.admit('127.0.0.2')).toBe('127.0.0.2');
  });

  it('counts the IPv6 addresses of one /64 together', () => {
    const count = new AddressCount(3);
    for (let i = 1; i <= 3; i++) expect(count.admit(`2001:db8:5:6::${i.toString(16)}`)).toBe('2001:db8:5:6::/64');
    expect(count.admit('2001:db8:5:6:ffff:ffff:ffff:ffff')).toBe(false);
    expect(count.admit('2001:db8:5:7::1')).toBe('2001:db8:5:7::/64');
  });

  it('does not count exempt addresses (trusted proxies), however many connections they hold', () => {
    const count = new AddressCount(1, addressMatcher(['10.0.0.0/8']));
    for (let i = 0; i < 1000; i++) expect(count.admit('10.9.9.9')).toBeNull();
    expect(count.addresses).toBe(0);
    expect(count.admit('11.0.0.1')).toBe('11.0.0.1');
    expect(count.admit('11.0.0.1')).toBe(false);
  });

  it('forgets an address once its last connection closes', () => {
    const count = new AddressCount(5);
    const keys = [count.admit('1.2.3.4'), count.admit('1.2.3.4'), count.admit('5.6.7.8')] as string[];
    expect(count.addresses).toBe(2);
    for (const key of keys) count.release(key);
    expect(count.addresses).toBe(0);
    expect(count.count('1.2.3.4')).toBe(0);
  });
});
