// HTTPS configuration: the ingress's TLS port beside its HTTP port (8443 beside 8000, 443 beside
// 80, none beside another; 0 = none), the ACME CA and contact, the resolvers custom domains are
// checked with, the public addresses, the renewal fraction; each bad value a ConfigError naming its
// variable, also through loadConfig.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from './config.ts';
import { ConfigError } from './errors.ts';
import { httpsConfig, LETS_ENCRYPT_DIRECTORY, LETS_ENCRYPT_STAGING_DIRECTORY } from './https.ts';

const refused = (env: Record<string, string>, variable: string, detail?: RegExp) => {
  assert.throws(() => httpsConfig(env), (err: unknown) => {
    assert.ok(err instanceof ConfigError, String(err));
    assert.match(err.message, new RegExp(`^${variable} `), err.message);
    if (detail) assert.match(err.message, detail);
    return true;
  }, JSON.stringify(env));
};

test('defaults: 8443 beside the default INGRESS_PORT 8000, Let\'s Encrypt, the system\'s resolvers, a third of the lifetime', () => {
  assert.deepEqual(httpsConfig({}), {
    port: 8443, acmeDirectoryUrl: LETS_ENCRYPT_DIRECTORY, acmeEmail: null, acmeCaBundle: null, dnsResolvers: [], publicAddresses: [], renewalFraction: 1 / 3, dns01: null, ingressDomainHttps: false,
  });
  assert.equal(httpsConfig({ INGRESS_PORT: '' }).port, 8443);
});

test('INGRESS_HTTPS_PORT: 8443 beside 8000, 443 beside 80, none beside another port; 0 is none; an explicit port wins', () => {
  assert.equal(httpsConfig({ INGRESS_PORT: '8000' }).port, 8443);
  assert.equal(httpsConfig({ INGRESS_PORT: '80' }).port, 443);
  assert.equal(httpsConfig({ INGRESS_PORT: '8080' }).port, null);
  assert.equal(httpsConfig({ INGRESS_PORT: '9000' }).port, null);
  assert.equal(httpsConfig({ INGRESS_HTTPS_PORT: '0' }).port, null);
  assert.equal(httpsConfig({ INGRESS_PORT: '80', INGRESS_HTTPS_PORT: '0' }).port, null);
  assert.equal(httpsConfig({ INGRESS_PORT: '8080', INGRESS_HTTPS_PORT: '8444' }).port, 8444);
  assert.equal(httpsConfig({ INGRESS_PORT: '80', INGRESS_HTTPS_PORT: '' }).port, 443);
  assert.equal(httpsConfig({ INGRESS_HTTPS_PORT: '65535' }).port, 65535);
});

test('INGRESS_HTTPS_PORT: not a port, or INGRESS_PORT itself, is a ConfigError naming it', () => {
  for (const bad of ['https', '-1', '65536', '8443.5', ' 443', '0x1bb']) refused({ INGRESS_HTTPS_PORT: bad }, 'INGRESS_HTTPS_PORT', /a port \(1-65535\) or 0 for none/);
  refused({ INGRESS_HTTPS_PORT: '8000' }, 'INGRESS_HTTPS_PORT', /must differ from INGRESS_PORT \(8000\)/);
  refused({ INGRESS_PORT: '9000', INGRESS_HTTPS_PORT: '9000' }, 'INGRESS_HTTPS_PORT', /must differ from INGRESS_PORT/);
});

test('ACME_DIRECTORY_URL, ACME_EMAIL and ACME_CA_BUNDLE', () => {
  const c = httpsConfig({ ACME_DIRECTORY_URL: 'https://127.0.0.1:14000/dir', ACME_EMAIL: 'ops@example.com', ACME_CA_BUNDLE: '/etc/berth/pebble.pem' });
  assert.deepEqual([c.acmeDirectoryUrl, c.acmeEmail, c.acmeCaBundle], ['https://127.0.0.1:14000/dir', 'ops@example.com', '/etc/berth/pebble.pem']);
  // Let's Encrypt's staging directory, to try berth without its rate limits
  assert.equal(httpsConfig({ ACME_DIRECTORY_URL: LETS_ENCRYPT_STAGING_DIRECTORY }).acmeDirectoryUrl, 'https://acme-staging-v02.api.letsencrypt.org/directory');
  refused({ ACME_DIRECTORY_URL: 'http://acme.example.com/dir' }, 'ACME_DIRECTORY_URL', /an https:\/\/ URL, got "http:\/\/acme\.example\.com\/dir"/);
  refused({ ACME_DIRECTORY_URL: 'not a url' }, 'ACME_DIRECTORY_URL');
  for (const bad of ['ops', 'ops@example', 'a b@example.com']) refused({ ACME_EMAIL: bad }, 'ACME_EMAIL', /an e-mail address/);
});

test('DNS_RESOLVERS: IP[:port] entries, IPv6 bare or in brackets', () => {
  assert.deepEqual(httpsConfig({ DNS_RESOLVERS: '127.0.0.1:5353, 192.0.2.53,[::1]:53,::1,2001:db8::53' }).dnsResolvers,
    ['127.0.0.1:5353', '192.0.2.53', '[::1]:53', '::1', '2001:db8::53']);
  for (const bad of ['dns.example.com', '127.0.0.1:abc', '1.2.3']) refused({ DNS_RESOLVERS: bad }, 'DNS_RESOLVERS', new RegExp(`got "${bad.replace(/\./g, '\\.')}"`));
});

test('INGRESS_PUBLIC_ADDRESSES: IP addresses only', () => {
  assert.deepEqual(httpsConfig({ INGRESS_PUBLIC_ADDRESSES: '203.0.113.7, 2001:db8::7' }).publicAddresses, ['203.0.113.7', '2001:db8::7']);
  refused({ INGRESS_PUBLIC_ADDRESSES: '203.0.113.7,berth.example.com' }, 'INGRESS_PUBLIC_ADDRESSES', /got "berth\.example\.com"/);
});

test('CERTIFICATE_RENEWAL_FRACTION: above 0, at most 1', () => {
  assert.equal(httpsConfig({ CERTIFICATE_RENEWAL_FRACTION: '0.5' }).renewalFraction, 0.5);
  assert.equal(httpsConfig({ CERTIFICATE_RENEWAL_FRACTION: '1' }).renewalFraction, 1);
  for (const bad of ['0', '-0.1', '1.5', 'third', 'NaN', 'Infinity']) refused({ CERTIFICATE_RENEWAL_FRACTION: bad }, 'CERTIFICATE_RENEWAL_FRACTION');
});

test('loadConfig carries the HTTPS settings and stops on a bad one with the same ConfigError', () => {
  const base = { DATA_DIR: '/nonexistent', LOG_LEVEL: 'silent' };
  assert.equal(loadConfig({ ...base, INGRESS_PORT: '80' }).https.port, 443);
  assert.deepEqual(loadConfig({ ...base, DNS_RESOLVERS: '127.0.0.1:53' }).https.dnsResolvers, ['127.0.0.1:53']);
  assert.throws(() => loadConfig({ ...base, INGRESS_HTTPS_PORT: 'x' }), (err: unknown) => err instanceof ConfigError && /^INGRESS_HTTPS_PORT /.test(err.message));
});

test('ACME_DNS01_RFC2136_*: all of server, key name and secret or none; port 53, hmac-sha256 and the SOA look-up by default', () => {
  const secret = Buffer.alloc(32, 1).toString('base64');
  const full = { ACME_DNS01_RFC2136_SERVER: '192.0.2.53', ACME_DNS01_RFC2136_KEY_NAME: 'Berth-ACME.', ACME_DNS01_RFC2136_KEY_SECRET: secret };
  assert.deepEqual(httpsConfig(full).dns01, {
    host: '192.0.2.53', port: 53, keyName: 'berth-acme', keySecret: Buffer.alloc(32, 1), keyAlgorithm: 'hmac-sha256', zone: null,
  });
  const given = httpsConfig({ ...full, ACME_DNS01_RFC2136_SERVER: '127.0.0.1:5353', ACME_DNS01_RFC2136_KEY_ALGORITHM: 'HMAC-SHA512', ACME_DNS01_RFC2136_ZONE: 'Shop.Example.' }).dns01!;
  assert.deepEqual([given.host, given.port, given.keyAlgorithm, given.zone], ['127.0.0.1', 5353, 'hmac-sha512', 'shop.example']);
  assert.deepEqual([httpsConfig({ ...full, ACME_DNS01_RFC2136_SERVER: '[2001:db8::53]:5353' }).dns01!.host, httpsConfig({ ...full, ACME_DNS01_RFC2136_SERVER: '::1' }).dns01!.port], ['2001:db8::53', 53]);
  // a partial set names what is missing
  refused({ ACME_DNS01_RFC2136_SERVER: '192.0.2.53' }, 'ACME_DNS01_RFC2136_KEY_NAME', /needs .* together .*missing: ACME_DNS01_RFC2136_KEY_NAME, ACME_DNS01_RFC2136_KEY_SECRET/);
  refused({ ACME_DNS01_RFC2136_ZONE: 'shop.example' }, 'ACME_DNS01_RFC2136_SERVER', /ACME_DNS01_RFC2136_ZONE is set; missing: ACME_DNS01_RFC2136_SERVER, ACME_DNS01_RFC2136_KEY_NAME, ACME_DNS01_RFC2136_KEY_SECRET/);
  refused({ ...full, ACME_DNS01_RFC2136_KEY_SECRET: '' }, 'ACME_DNS01_RFC2136_KEY_SECRET', /missing: ACME_DNS01_RFC2136_KEY_SECRET\)$/);
  refused({ ...full, ACME_DNS01_RFC2136_SERVER: 'ns1.example.com' }, 'ACME_DNS01_RFC2136_SERVER', /IP\[:port\]/);
  refused({ ...full, ACME_DNS01_RFC2136_SERVER: '192.0.2.53:70000' }, 'ACME_DNS01_RFC2136_SERVER');
  refused({ ...full, ACME_DNS01_RFC2136_KEY_SECRET: 'not base64!' }, 'ACME_DNS01_RFC2136_KEY_SECRET', /base64/);
  refused({ ...full, ACME_DNS01_RFC2136_KEY_SECRET: Buffer.alloc(8).toString('base64') }, 'ACME_DNS01_RFC2136_KEY_SECRET', /at least 16 bytes/);
  refused({ ...full, ACME_DNS01_RFC2136_KEY_ALGORITHM: 'hmac-md5' }, 'ACME_DNS01_RFC2136_KEY_ALGORITHM', /hmac-sha256 or hmac-sha512/);
  refused({ ...full, ACME_DNS01_RFC2136_KEY_NAME: 'bad key' }, 'ACME_DNS01_RFC2136_KEY_NAME');
  refused({ ...full, ACME_DNS01_RFC2136_ZONE: 'bad..zone' }, 'ACME_DNS01_RFC2136_ZONE');
  assert.throws(() => loadConfig({ DATA_DIR: '/nonexistent', LOG_LEVEL: 'silent', ACME_DNS01_RFC2136_KEY_NAME: 'k' }), /ACME_DNS01_RFC2136_SERVER is missing/);
});

test('INGRESS_DOMAIN_HTTPS: auto is on for a public INGRESS_DOMAIN with a DNS-01 provider and an HTTPS port; on without them is refused', () => {
  const dns01 = { ACME_DNS01_RFC2136_SERVER: '127.0.0.1:5353', ACME_DNS01_RFC2136_KEY_NAME: 'berth', ACME_DNS01_RFC2136_KEY_SECRET: Buffer.alloc(32, 7).toString('base64') };
  assert.equal(httpsConfig({ INGRESS_DOMAIN: 'apps.example.com', ...dns01 }).ingressDomainHttps, true);
  assert.equal(httpsConfig({ INGRESS_DOMAIN: 'apps.example.com' }).ingressDomainHttps, false, 'no DNS-01 provider');
  assert.equal(httpsConfig({ INGRESS_DOMAIN: 'apps.example.com', INGRESS_HTTPS_PORT: '0', ...dns01 }).ingressDomainHttps, false, 'no HTTPS listener');
  for (const domain of ['localhost', 'shop.test', 'apps.localhost', 'corp.internal', 'box.local', 'printer.home.arpa', 'example']) {
    assert.equal(httpsConfig({ INGRESS_DOMAIN: domain, ...dns01 }).ingressDomainHttps, false, domain);
  }
  assert.equal(httpsConfig({ INGRESS_DOMAIN: 'shop.test', INGRESS_DOMAIN_HTTPS: 'on', ...dns01 }).ingressDomainHttps, true);
  assert.equal(httpsConfig({ INGRESS_DOMAIN: 'apps.example.com', INGRESS_DOMAIN_HTTPS: 'off', ...dns01 }).ingressDomainHttps, false);
  refused({ INGRESS_DOMAIN_HTTPS: 'on' }, 'INGRESS_DOMAIN_HTTPS=on', /DNS-01 provider/);
  refused({ INGRESS_DOMAIN_HTTPS: 'on', INGRESS_HTTPS_PORT: '0', ...dns01 }, 'INGRESS_DOMAIN_HTTPS=on', /INGRESS_HTTPS_PORT/);
  refused({ INGRESS_DOMAIN_HTTPS: 'yes' }, 'INGRESS_DOMAIN_HTTPS');
});
