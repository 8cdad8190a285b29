// Route settings rendered as HAProxy configuration (decision 0337): the directives of each key, the
// order HAProxy evaluates them in, quoting that keeps any value a literal, the userlist, and the
// digest that tells a slot's rules apart. test/engine/ingress-settings.test.ts runs them for real.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DIGEST, backendRules, quoted, rulesDigest, serverOptions, userlist } from './haproxy-rules.ts';
import { haproxyConfig } from './haproxy-config.ts';
import { DEFAULT_ROUTE_SETTINGS, routeSettingsOf, type RouteSettings } from './settings.ts';

const SHA512 = '$6$abc$Qciy6P8ZI4.BUgLFaLq4ucJ/kaRX8v1UyAM81WBAsuW.zwYw31yCKomfTgHAlZwPGi/aFdo83BhJQPQYtp74M0';
const withSettings = (advanced: Record<string, unknown>, env: Record<string, string> = {}): RouteSettings => routeSettingsOf(advanced, env).settings;

test('quoting: single quotes, a quote as \'\\\'\'', () => {
  assert.equal(quoted('plain'), "'plain'");
  assert.equal(quoted("it's ${HOME} \\n #x"), "'it'\\''s ${HOME} \\n #x'");
});

test('the default rules: the catalogue\'s timeouts, request buffering and a 100 MiB body limit; servers keep idle connections 60 s', () => {
  assert.deepEqual(backendRules(0, null, DEFAULT_ROUTE_SETTINGS), [
    '  timeout connect 60s',
    '  timeout server 60s',
    '  http-request deny deny_status 413 if { req.hdr_val(content-length) gt 104857600 }',
    '  http-request wait-for-body time 30s',
  ]);
  assert.equal(serverOptions(DEFAULT_ROUTE_SETTINGS), ' pool-purge-delay 60s');
  assert.deepEqual(backendRules(0, null, withSettings({ 'network.ingress.proxy_read_timeout_seconds': 0, 'network.ingress.proxy_connect_timeout_seconds': 0, 'network.ingress.proxy_request_buffering': 'off', 'network.ingress.proxy_body_size_mb': 0 })), [],
    '0 and off: the ingress\'s own limits, no buffering, no body limit');
});

test('every family, in the order HAProxy must evaluate them: 403, CORS preflight, 401, 413; headers on every answer', () => {
  const s = withSettings({
    'network.ingress.whitelist_source_range': '10.0.0.0/8, ::1', 'network.ingress.denylist_source_range': '10.9.0.0/16',
    'network.ingress.enable_cors': true, 'network.ingress.cors_allow_origin': '*', 'network.ingress.cors_allow_methods': 'GET, POST',
    'network.ingress.cors_allow_headers': 'X-A', 'network.ingress.basic_auth_env_var': 'U', 'network.ingress.enable_sticky_session': true,
    'network.ingress.extra_headers': JSON.stringify({ 'X-Frame-Options': 'DENY', 'X-Odd': "50% it's" }),
  }, { U: `alice:${SHA512}` });
  const rules = backendRules(7, 'svc-1', s);
  const at = (pattern: RegExp) => rules.findIndex((l) => pattern.test(l));
  assert.ok(rules.includes('  cookie INGRESSCOOKIE insert indirect nocache httponly dynamic'));
  assert.ok(rules.includes("  dynamic-cookie-key 'svc-1'"));
  assert.ok(rules.includes('  http-request deny deny_status 403 if !{ src 10.0.0.0/8 ::1/128 }'));
  assert.ok(rules.includes('  http-request deny deny_status 403 if { src 10.9.0.0/16 }'));
  assert.ok(rules.includes("  http-request return status 204 hdr Access-Control-Allow-Origin '*' hdr Access-Control-Allow-Methods 'GET, POST' hdr Access-Control-Allow-Headers 'X-A' hdr Access-Control-Allow-Credentials 'true' hdr Access-Control-Max-Age '1728000' if METH_OPTIONS"));
  assert.ok(rules.includes("  http-after-response set-header Access-Control-Allow-Origin '*'"));
  assert.ok(rules.includes('  http-request auth realm berth unless { http_auth(berth-users-7) }'));
  assert.ok(rules.includes("  http-after-response set-header 'X-Odd' '50%% it'\\''s'"), 'a literal % in a log-format value is %%');
  assert.ok(at(/deny_status 403 if !/) < at(/deny_status 403 if \{/));
  assert.ok(at(/deny_status 403 if \{/) < at(/return status 204/));
  assert.ok(at(/return status 204/) < at(/http-request auth/));
  assert.ok(at(/http-request auth/) < at(/deny_status 413/));
  const requestRules = rules.filter((l) => l.startsWith('  http-request'));
  assert.equal(requestRules[requestRules.length - 1], '  http-request wait-for-body time 30s', 'the body is waited for after every check');
  assert.deepEqual(userlist(7, s), ['userlist berth-users-7', `  user 'alice' password '${SHA512}'`, '']);
  assert.deepEqual(userlist(7, DEFAULT_ROUTE_SETTINGS), []);
  assert.deepEqual(backendRules(1, 'x', withSettings({ 'network.ingress.whitelist_source_range': 'nope' })).filter((l) => l.includes('403')), ['  http-request deny deny_status 403'], 'no valid range: nobody');
});

test('CORS for a list of origins: the request\'s Origin echoed when it is one of them, Vary: Origin always', () => {
  const rules = backendRules(2, 'r', withSettings({ 'network.ingress.enable_cors': true, 'network.ingress.cors_allow_origin': 'https://a.example,https://b.example' }));
  assert.ok(rules.includes("  acl berth_cors_origin req.hdr(origin) -m str 'https://a.example' 'https://b.example'"));
  assert.ok(rules.some((l) => /^ {2}http-request return status 204 hdr Access-Control-Allow-Origin '%\[var\(txn\.berth_cors_origin\)\]' .* if METH_OPTIONS berth_cors_origin$/.test(l)));
  assert.ok(rules.includes("  http-after-response set-header Access-Control-Allow-Origin '%[var(txn.berth_cors_origin)]' if { var(txn.berth_cors_origin) -m found }"));
  assert.ok(rules.includes("  http-after-response add-header Vary 'Origin'"));
});

test('the digest: one for every route with the default rules, another as soon as a rule differs; the route id counts for a sticky cookie only', () => {
  assert.equal(rulesDigest(DEFAULT_ROUTE_SETTINGS, 'a'), DEFAULT_DIGEST);
  assert.equal(rulesDigest(withSettings({}), 'b'), DEFAULT_DIGEST);
  assert.notEqual(rulesDigest(withSettings({ 'network.ingress.extra_headers': '{"X-A":"1"}' }), 'a'), DEFAULT_DIGEST);
  const sticky = withSettings({ 'network.ingress.enable_sticky_session': true });
  assert.notEqual(rulesDigest(sticky, 'a'), rulesDigest(sticky, 'b'));
  assert.match(DEFAULT_DIGEST, /^[0-9a-f]{16}$/);
  const reordered = Object.fromEntries(Object.entries(DEFAULT_ROUTE_SETTINGS).reverse()) as unknown as RouteSettings;
  assert.equal(rulesDigest(reordered, 'a'), DEFAULT_DIGEST, 'key order does not count (settings read back from routes.json)');
});

test('the configuration has each route\'s userlist before the backends and its rules in its slot only', () => {
  const s = withSettings({ 'network.ingress.basic_auth_env_var': 'U' }, { U: `alice:${SHA512}` });
  const config = haproxyConfig({ host: '127.0.0.1', port: 8000, slots: 3, routes: [{ slot: 2, id: 'svc', hosts: ['a.localhost'], upstreams: ['127.0.0.1:5'], settings: s }] });
  assert.ok(config.indexOf('userlist berth-users-2') < config.indexOf('backend berth-slot-0'));
  assert.equal(config.match(/http-request auth/g)?.length, 1);
  assert.match(config, /backend berth-slot-2\n(?: {2}.*\n)* {2}http-request auth realm berth unless \{ http_auth\(berth-users-2\) \}\n(?: {2}.*\n)* {2}server u5 127\.0\.0\.1:5 pool-purge-delay 60s\n/);
});
