// Tests of the CIDR helpers: parsing, list parsing, list membership, private-address detection.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cidrListContains,
  isPrivateAddress,
  isValidCidr,
  parseCidr,
  parseCommaSeparatedCidrs,
} from './cidr.ts';

test('parseCidr accepts IPv4 and IPv6 ranges', () => {
  assert.deepEqual(parseCidr('10.0.0.0/8'), { ok: true, version: 4, network: '10.0.0.0', prefix: 8, cidr: '10.0.0.0/8' });
  assert.deepEqual(parseCidr('0.0.0.0/0'), { ok: true, version: 4, network: '0.0.0.0', prefix: 0, cidr: '0.0.0.0/0' });
  assert.deepEqual(parseCidr('2001:db8::/32'), { ok: true, version: 6, network: '2001:db8::', prefix: 32, cidr: '2001:db8::/32' });
  assert.deepEqual(parseCidr('::/0'), { ok: true, version: 6, network: '::', prefix: 0, cidr: '::/0' });
  assert.equal(isValidCidr('192.168.1.0/24'), true);
  assert.equal(isValidCidr('255.255.255.255/32'), true);
  assert.equal(isValidCidr('::ffff:10.0.0.0/104'), true);
});

test('parseCidr reads a bare address as a single host', () => {
  assert.deepEqual(parseCidr('1.2.3.4'), { ok: true, version: 4, network: '1.2.3.4', prefix: 32, cidr: '1.2.3.4/32' });
  const v6 = parseCidr('2001:db8::1');
  assert.ok(v6.ok);
  assert.equal(v6.prefix, 128);
});

test('parseCidr normalizes host bits to the network address', () => {
  const parsed = parseCidr('10.1.2.3/8');
  assert.ok(parsed.ok);
  assert.equal(parsed.cidr, '10.0.0.0/8');
  const v6 = parseCidr('2001:db8:abcd::1/33');
  assert.ok(v6.ok);
  assert.equal(v6.cidr, '2001:db8:8000::/33');
});

test('parseCidr rejects garbage, empty and out-of-range prefixes', () => {
  for (const bad of [
    '', ' ', 'hello', '10.0.0.0/', '10.0.0.0/33', '10.0.0.0/-1', '10.0.0.0/8/8', '10.0.0.0/08', '10.0.0.0/+8',
    '10.0.0/8', '256.0.0.0/8', '10.1/8', '0x0a.0.0.0/8', '010.0.0.0/8', '2001:db8::/129', '2001:db8::g/32',
    'fe80::1%eth0/64', ' 10.0.0.0/8', '10.0.0.0/8 ', '/8', '10.0.0.0 /8',
  ]) {
    const parsed = parseCidr(bad);
    assert.equal(parsed.ok, false, `expected ${JSON.stringify(bad)} to be rejected`);
    assert.equal(isValidCidr(bad), false);
    if (!parsed.ok) assert.ok(parsed.reason.length > 0);
  }
  const out = parseCidr('10.0.0.0/33');
  assert.ok(!out.ok && /out of range/.test(out.reason));
  assert.equal(isValidCidr(undefined as unknown as string), false);
});

test('parseCommaSeparatedCidrs parses ingress lists', () => {
  const all = parseCommaSeparatedCidrs('0.0.0.0/0');
  assert.ok(all.ok);
  assert.deepEqual(all.ranges.map((r) => r.cidr), ['0.0.0.0/0']);
  const two = parseCommaSeparatedCidrs('10.0.0.0/8, 192.168.0.0/16');
  assert.ok(two.ok);
  assert.deepEqual(two.ranges.map((r) => r.cidr), ['10.0.0.0/8', '192.168.0.0/16']);
  const mixed = parseCommaSeparatedCidrs('10.0.0.0/8,2001:db8::/32,1.2.3.4');
  assert.ok(mixed.ok);
  assert.deepEqual(mixed.ranges.map((r) => r.version), [4, 6, 4]);
  const empty = parseCommaSeparatedCidrs('');
  assert.ok(empty.ok);
  assert.equal(empty.ranges.length, 0);
  assert.ok(parseCommaSeparatedCidrs('   ').ok);
});

test('parseCommaSeparatedCidrs names the first invalid entry', () => {
  const bad = parseCommaSeparatedCidrs('10.0.0.0/8, 300.1.1.1/8, nope');
  assert.equal(bad.ok, false);
  if (!bad.ok) {
    assert.equal(bad.entry, '300.1.1.1/8');
    assert.equal(bad.index, 1);
  }
  const trailing = parseCommaSeparatedCidrs('10.0.0.0/8,');
  assert.ok(!trailing.ok && trailing.entry === '' && trailing.index === 1 && trailing.reason === 'empty');
  const semicolon = parseCommaSeparatedCidrs('10.0.0.0/8; 192.168.0.0/16');
  assert.ok(!semicolon.ok && semicolon.entry === '10.0.0.0/8; 192.168.0.0/16');
});

test('cidrListContains matches IPv4, IPv6 and IPv4-mapped client addresses', () => {
  const list = ['10.0.0.0/8', '192.168.1.0/24', '2001:db8::/32'];
  assert.equal(cidrListContains(list, '10.20.30.40'), true);
  assert.equal(cidrListContains(list, '192.168.1.255'), true);
  assert.equal(cidrListContains(list, '192.168.2.1'), false);
  assert.equal(cidrListContains(list, '2001:db8::42'), true);
  assert.equal(cidrListContains(list, '2001:db9::1'), false);
  assert.equal(cidrListContains(['127.0.0.0/8'], '::ffff:127.0.0.1'), true);
  assert.equal(cidrListContains(['127.0.0.1'], '::ffff:7f00:1'), true);
  assert.equal(cidrListContains(['::ffff:10.0.0.0/104'], '10.1.2.3'), true);
  assert.equal(cidrListContains(['0.0.0.0/0'], '203.0.113.9'), true);
  assert.equal(cidrListContains(['0.0.0.0/0'], '2001:db8::1'), false);
  assert.equal(cidrListContains(['::/0'], '203.0.113.9'), false);
  assert.equal(cidrListContains(['::/0'], '::1'), true);
});

test('cidrListContains: empty list, invalid entries and invalid addresses never match', () => {
  assert.equal(cidrListContains([], '10.0.0.1'), false);
  assert.equal(cidrListContains(['garbage', '10.0.0.0/99'], '10.0.0.1'), false);
  assert.equal(cidrListContains(['garbage', ' 10.0.0.0/8 '], '10.0.0.1'), true);
  assert.equal(cidrListContains(['0.0.0.0/0'], 'not-an-ip'), false);
  assert.equal(cidrListContains(['0.0.0.0/0'], ''), false);
});

test('isPrivateAddress flags non-public destinations', () => {
  for (const ip of [
    '127.0.0.1', '127.255.255.254', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.0.1',
    '169.254.169.254', '169.254.0.1', '100.64.0.1', '100.127.255.255', '0.0.0.0', '0.1.2.3',
    '224.0.0.1', '239.255.255.250', '255.255.255.255', '240.0.0.1', '192.0.2.1', '198.51.100.1',
    '203.0.113.1', '198.18.0.1',
    '::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'ff02::1', 'fec0::1',
    '2001:db8::1', '::ffff:127.0.0.1', '::ffff:169.254.169.254', '::ffff:10.0.0.1', '::ffff:0.0.0.0',
    '64:ff9b::a00:1', '64:ff9b::127.0.0.1', '2002:7f00:1::1', '2001::1', '100::1',
    '127.1', '0x7f000001',
  ]) {
    assert.equal(isPrivateAddress(ip), true, `expected ${ip} to be private`);
  }
});

test('isPrivateAddress lets public unicast through', () => {
  for (const ip of [
    '8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '169.255.0.1', '11.0.0.1',
    '2606:4700:4700::1111', '2a00:1450:4007:80f::200e', '::ffff:8.8.8.8', '64:ff9b::808:808',
  ]) {
    assert.equal(isPrivateAddress(ip), false, `expected ${ip} to be public`);
  }
});

test('isPrivateAddress fails closed on unparsable input', () => {
  for (const ip of ['', 'localhost', 'example.com', '1.2.3.4.5', '[::1]', '::1/128']) {
    assert.equal(isPrivateAddress(ip), true, `expected ${JSON.stringify(ip)} to be refused`);
  }
});
