// Custom-domain rules: the stored form of a requested name (punycode, lower case, no trailing dot)
// and every refusal with its reason, the DNS record a user creates, the check's verdict from what
// DNS answered, the back-off of a failed order and when a certificate is due for renewal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dnsRecord, isApex, judge, normalizeDomain, passes, renewalDue, retryAt, type DomainVerdict, storedForm } from './domains.rules.ts';

const o = { ingressDomain: 'apps.example.net', dns01: false };
const refused = (v: DomainVerdict): string => {
  assert.equal(v.ok, false, JSON.stringify(v));
  return (v as { message: string }).message;
};

test('normalizeDomain: lower case, punycode, no trailing dot or spaces', () => {
  assert.deepEqual(normalizeDomain('Shop.Example.COM', o), { ok: true, domain: 'shop.example.com', wildcard: false });
  assert.deepEqual(normalizeDomain(' www.example.com. ', o), { ok: true, domain: 'www.example.com', wildcard: false });
  assert.deepEqual(normalizeDomain('Bücher.example.org', o), { ok: true, domain: 'xn--bcher-kva.example.org', wildcard: false });
  assert.deepEqual(normalizeDomain('xn--bcher-kva.example.org', o), { ok: true, domain: 'xn--bcher-kva.example.org', wildcard: false });
  assert.deepEqual(normalizeDomain('例え.テスト', o), { ok: true, domain: 'xn--r8jz45g.xn--zckzah', wildcard: false });
  assert.deepEqual(normalizeDomain('example.com', o), { ok: true, domain: 'example.com', wildcard: false });
  assert.deepEqual(normalizeDomain(`${'a'.repeat(63)}.example.com`, o), { ok: true, domain: `${'a'.repeat(63)}.example.com`, wildcard: false });
});

test('normalizeDomain: IP addresses are refused, in every form the URL parser reads as one', () => {
  for (const ip of ['192.0.2.10', '::1', '2001:db8::1', '127.1', '0x7f.0.0.1', '*.192.0.2.10']) {
    assert.match(refused(normalizeDomain(ip, o)), /is an IP address; a custom domain is a host name|is an IP address \(/, ip);
  }
  assert.match(refused(normalizeDomain('127.1', o)), /127\.1 is an IP address \(127\.0\.0\.1\)/);
});

test('normalizeDomain: bad names say which label and why', () => {
  assert.match(refused(normalizeDomain('localhost', o)), /needs at least two labels/);
  assert.match(refused(normalizeDomain('under_score.example.com', o)), /invalid label "under_score"/);
  assert.match(refused(normalizeDomain('-dash.example.com', o)), /invalid label "-dash"/);
  assert.match(refused(normalizeDomain('dash-.example.com', o)), /invalid label "dash-"/);
  assert.match(refused(normalizeDomain('a..example.com', o)), /invalid label ""/);
  assert.match(refused(normalizeDomain(`${'a'.repeat(64)}.example.com`, o)), /invalid label "a{64}"/);
  assert.match(refused(normalizeDomain('ex ample.com', o)), /is not a valid host name/);
  assert.match(refused(normalizeDomain('example.com:8080', o)), /is not a valid host name/);
  assert.match(refused(normalizeDomain('shop.123', o)), /is not a valid host name/);
  assert.match(refused(normalizeDomain(`${'abcdefghi.'.repeat(25)}example.com`, o)), /is not a valid host name/);
});

test('normalizeDomain: the names berth gives services itself (INGRESS_DOMAIN and under) are refused', () => {
  assert.match(refused(normalizeDomain('web-1234abcd.apps.example.net', o)), /web-1234abcd\.apps\.example\.net is under INGRESS_DOMAIN \(apps\.example\.net\)/);
  assert.match(refused(normalizeDomain('APPS.example.net', o)), /under INGRESS_DOMAIN/);
  assert.match(refused(normalizeDomain('*.apps.example.net', { ...o, dns01: true })), /under INGRESS_DOMAIN/);
  assert.deepEqual(normalizeDomain('myapps.example.net', o), { ok: true, domain: 'myapps.example.net', wildcard: false });
  assert.deepEqual(normalizeDomain('example.net', o), { ok: true, domain: 'example.net', wildcard: false });
});

test('normalizeDomain: a wildcard needs a DNS-01 provider, and says so', () => {
  assert.match(refused(normalizeDomain('*.example.com', o)), /a wildcard \(\*\.example\.com\) can only get a certificate through a DNS-01 challenge, and no DNS-01 provider is configured/);
  assert.deepEqual(normalizeDomain('*.Example.com', { ...o, dns01: true }), { ok: true, domain: '*.example.com', wildcard: true });
  assert.deepEqual(normalizeDomain('*.bücher.example', { ...o, dns01: true }), { ok: true, domain: '*.xn--bcher-kva.example', wildcard: true });
  assert.match(refused(normalizeDomain('www.*.example.com', { ...o, dns01: true })), /invalid label "\*"/);
});

test('dnsRecord: a CNAME to the validation domain; an apex (no CNAME possible) an A or AAAA to the public address', () => {
  const target = 'web-1234abcd.apps.example.net';
  assert.deepEqual(dnsRecord('shop.example.com', target, ['203.0.113.7']), { type: 'CNAME', name: 'shop.example.com', value: target });
  assert.deepEqual(dnsRecord('example.com', target, ['203.0.113.7', '203.0.113.8']), { type: 'A', name: 'example.com', value: '203.0.113.7' });
  assert.deepEqual(dnsRecord('example.com', target, ['2001:db8::7']), { type: 'AAAA', name: 'example.com', value: '2001:db8::7' });
  // no address known: the CNAME is all berth can say
  assert.deepEqual(dnsRecord('example.com', target, []), { type: 'CNAME', name: 'example.com', value: target });
  assert.equal(isApex('example.com'), true);
  assert.equal(isApex('*.example.com'), true);
  assert.equal(isApex('www.example.com'), false);
});

test('judge: berth in the CNAME chain or an address berth listens on matches; a CDN domain need only resolve', () => {
  const v = { validationDomain: 'web-1234abcd.apps.example.net', expected: ['203.0.113.7'], useCdn: false };
  const ok = { status: 'MATCHES_LOAD_BALANCER_HOST', details: null };
  assert.deepEqual(judge('shop.example.com', { cnames: ['web-1234abcd.apps.example.net'], addresses: ['198.51.100.1'] }, v), ok);
  assert.deepEqual(judge('shop.example.com', { cnames: [], addresses: ['203.0.113.7'] }, v), ok);
  assert.deepEqual(judge('shop.example.com', { cnames: ['lb.example.com'], addresses: ['198.51.100.9', '203.0.113.7'] }, v), ok);
  assert.deepEqual(judge('shop.example.com', { cnames: [], addresses: ['198.51.100.9'] }, { ...v, useCdn: true }), { status: 'RESOLVES_TO_IP', details: null });
  assert.equal(passes(ok as never), true);
  assert.equal(passes({ status: 'RESOLVES_TO_IP', details: null }), true);
});

test('judge: elsewhere, nothing, or a failed look-up, each with what to do', () => {
  const v = { validationDomain: 'web-1234abcd.apps.example.net', expected: ['203.0.113.7'], useCdn: false };
  const wrong = judge('shop.example.com', { cnames: [], addresses: ['192.0.2.10'] }, v);
  assert.equal(wrong.status, 'DOMAIN_LINKED_TO_WRONG_HOST');
  assert.equal(wrong.details, 'shop.example.com resolves to 192.0.2.10; it must point to web-1234abcd.apps.example.net (203.0.113.7): '
    + 'create a CNAME record shop.example.com → web-1234abcd.apps.example.net');
  const via = judge('shop.example.com', { cnames: ['shop.cdn.example', 'edge.cdn.example'], addresses: ['192.0.2.10', '192.0.2.11'] }, v);
  assert.match(via.details!, /resolves to 192\.0\.2\.10, 192\.0\.2\.11 \(through CNAME shop\.cdn\.example → edge\.cdn\.example\)/);
  const unknown = judge('shop.example.com', { cnames: [], addresses: ['192.0.2.10'] }, { ...v, expected: [] });
  assert.match(unknown.details!, /it must point to web-1234abcd\.apps\.example\.net: create/);
  const none = judge('shop.example.com', { cnames: [], addresses: [] }, v);
  assert.deepEqual(none, { status: 'DOMAIN_NOT_CONFIGURED', details: 'shop.example.com has no A, AAAA or CNAME record: create a CNAME record shop.example.com → web-1234abcd.apps.example.net' });
  // a CDN domain that resolves nowhere is not configured either
  assert.equal(judge('shop.example.com', { cnames: [], addresses: [] }, { ...v, useCdn: true }).status, 'DOMAIN_NOT_CONFIGURED');
  const failed = judge('shop.example.com', { cnames: [], addresses: [], error: 'ETIMEOUT (queryA ETIMEOUT shop.example.com)' }, v);
  assert.deepEqual(failed, { status: 'GENERIC_FAILURE', details: 'shop.example.com could not be resolved: ETIMEOUT (queryA ETIMEOUT shop.example.com)' });
  for (const x of [wrong, none, failed]) assert.equal(passes(x), false);
});

test('retryAt: the CA\'s own time when it gave one ahead, else 5 minutes doubling per failure, at most a day', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  const minutes = (d: Date) => (d.getTime() - now.getTime()) / 60_000;
  assert.deepEqual([0, 1, 2, 3, 4, 9, 10, 40].map((n) => minutes(retryAt(now, n))), [5, 5, 10, 20, 40, 1280, 1440, 1440]);
  const ca = new Date('2026-03-02T07:00:00Z');
  assert.equal(retryAt(now, 1, ca), ca);
  assert.equal(minutes(retryAt(now, 2, new Date('2026-03-01T11:00:00Z'))), 10);
  assert.equal(minutes(retryAt(now, 2, null)), 10);
});

test('renewalDue: once less than the fraction of the lifetime is left', () => {
  const notBefore = new Date('2026-01-01T00:00:00Z');
  const notAfter = new Date('2026-03-31T00:00:00Z'); // 89 days
  const at = (days: number) => new Date(notAfter.getTime() - days * 86_400_000);
  assert.equal(renewalDue(notBefore, notAfter, at(60), 1 / 3), false);
  assert.equal(renewalDue(notBefore, notAfter, at(30), 1 / 3), false);
  assert.equal(renewalDue(notBefore, notAfter, at(29), 1 / 3), true);
  assert.equal(renewalDue(notBefore, notAfter, at(-1), 1 / 3), true);
  assert.equal(renewalDue(notBefore, notAfter, at(88), 1), true);
  assert.equal(renewalDue(notBefore, notAfter, notBefore, 0.5), false);
});

test('storedForm: any spelling of a name finds the stored one (case, Unicode or punycode, trailing dot, wildcard)', () => {
  assert.equal(storedForm(' Bücher.Example.ORG. '), 'xn--bcher-kva.example.org');
  assert.equal(storedForm('xn--bcher-kva.example.org'), 'xn--bcher-kva.example.org');
  assert.equal(storedForm('*.Shop.Test'), '*.shop.test');
});
