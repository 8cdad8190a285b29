// A service's network.ingress.* settings read into route settings (decision 0337): the catalogue's
// defaults, each key's meaning, what is left out with a note (never a hash or a login), and the
// check every settings object passes before it is rendered into HAProxy's configuration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADVANCED_SETTINGS_CATALOGUE, defaultAdvancedSettings } from '../../modules/services/advanced-settings/index.ts';
import { DEFAULT_ROUTE_SETTINGS, checkSettings, parseHtpasswd, routeSettingsOf } from './settings.ts';

const SHA512 = '$6$abc$Qciy6P8ZI4.BUgLFaLq4ucJ/kaRX8v1UyAM81WBAsuW.zwYw31yCKomfTgHAlZwPGi/aFdo83BhJQPQYtp74M0';
const BCRYPT = '$2y$05$ruj9m0iW.8SU3kuwHObFFehgAtLp5LzgOG0oCxDqKqox44IdA2TAm';

test('no setting and the catalogue\'s defaults read the same: no restriction, 100 MiB bodies, 60 s timeouts, request buffering', () => {
  for (const kind of ['application', 'container'] as const) {
    assert.deepEqual(routeSettingsOf(defaultAdvancedSettings(kind)), { settings: DEFAULT_ROUTE_SETTINGS, notes: [] }, kind);
  }
  assert.deepEqual(DEFAULT_ROUTE_SETTINGS, {
    allow: null, deny: [], users: null, headers: [], maxBodyBytes: 100 * 1024 * 1024, cors: null,
    connectTimeout: 60, serverTimeout: 60, upstreamIdle: 60, bufferRequests: true, sticky: false,
  });
  // the engine repeats the defaults it reads (it does not import the modules): they must agree
  assert.equal(ADVANCED_SETTINGS_CATALOGUE['network.ingress.proxy_body_size_mb'].default, 100);
  assert.equal(ADVANCED_SETTINGS_CATALOGUE['network.ingress.whitelist_source_range'].default, '0.0.0.0/0');
});

test('source ranges: normalised CIDRs; 0.0.0.0/0 or an empty list lets everyone through; a list with no valid entry lets nobody', () => {
  const read = (allow: string, deny = '') => routeSettingsOf({ 'network.ingress.whitelist_source_range': allow, 'network.ingress.denylist_source_range': deny });
  assert.deepEqual(read('10.1.2.3/8, 2001:db8::1/32, 192.168.1.7').settings.allow, ['10.0.0.0/8', '2001:db8::/32', '192.168.1.7/32']);
  assert.equal(read('0.0.0.0/0').settings.allow, null);
  assert.equal(read('10.0.0.0/8, 0.0.0.0/0').settings.allow, null);
  assert.equal(read('').settings.allow, null);
  const broken = read('nope');
  assert.deepEqual(broken.settings.allow, [], 'fails closed');
  assert.match(broken.notes[0]!, /"nope" is not a CIDR range/);
  assert.deepEqual(read('0.0.0.0/0', '10.0.0.0/8,10.0.0.0/8, ::1').settings.deny, ['10.0.0.0/8', '::1/128']);
});

test('basic auth: the named variable\'s htpasswd lines; what HAProxy cannot check is left out and said without the hash', () => {
  const auth = (value: string | undefined) => routeSettingsOf({ 'network.ingress.basic_auth_env_var': 'USERS' }, value === undefined ? {} : { USERS: value });
  const { settings, notes } = auth(`alice:${SHA512}\n# comment\r\nbob:$apr1$abc$V7uD6Y3Ey1b.T8QFySWI51,carol:${BCRYPT},alice:${BCRYPT},dave:plain,"eve":${SHA512}`);
  assert.deepEqual(settings.users, [{ login: 'alice', hash: SHA512 }, { login: 'carol', hash: BCRYPT }]);
  assert.equal(notes.length, 4);
  assert.match(notes.join('\n'), /entry 2 uses Apache's \$apr1\$/);
  assert.match(notes.join('\n'), /entry 4 repeats a login/);
  for (const note of notes) assert.doesNotMatch(note, /Qciy6P|ruj9m0|V7uD6|alice|bob|carol|dave|plain/, 'no secret and no login in a note');
  assert.deepEqual(auth(undefined).settings.users, [], 'a missing variable: basic auth on with nobody (every request 401)');
  assert.match(auth(undefined).notes[0]!, /no variable USERS/);
  assert.equal(routeSettingsOf({ 'network.ingress.basic_auth_env_var': '' }).settings.users, null);
  assert.equal(routeSettingsOf({ 'network.ingress.basic_auth_env_var': null }).settings.users, null);
  assert.deepEqual(parseHtpasswd(`u:${'a'.repeat(13)}`, []), [{ login: 'u', hash: 'a'.repeat(13) }], 'a DES crypt hash');
});

test('CORS, extra headers, body size, timeouts, buffering and stickiness', () => {
  const { settings, notes } = routeSettingsOf({
    'network.ingress.enable_cors': true, 'network.ingress.cors_allow_origin': 'https://a.example, http://b.example:8080, javascript:x, *.bad',
    'network.ingress.cors_allow_methods': 'GET,POST , bad method', 'network.ingress.cors_allow_headers': 'X-A, X-B',
    'network.ingress.extra_headers': JSON.stringify({ 'X-Frame-Options': 'DENY', 'X-N': 5, 'Content-Length': '1', 'X-Multi': 'a\nb', 'Transfer-Encoding': 'chunked' }),
    'network.ingress.proxy_body_size_mb': 0, 'network.ingress.proxy_connect_timeout_seconds': 5,
    'network.ingress.proxy_read_timeout_seconds': 30, 'network.ingress.proxy_send_timeout_seconds': 90, 'network.ingress.keepalive_timeout_seconds': 0,
    'network.ingress.proxy_request_buffering': 'off', 'network.ingress.enable_sticky_session': true,
  });
  assert.deepEqual(settings.cors, { origins: ['https://a.example', 'http://b.example:8080'], methods: ['GET', 'POST'], headers: ['X-A', 'X-B'] });
  assert.deepEqual(settings.headers, [['X-Frame-Options', 'DENY'], ['X-N', '5']]);
  assert.equal(notes.filter((n) => n.startsWith('extra_headers')).length, 3);
  assert.equal(notes.filter((n) => n.startsWith('cors_allow_origin')).length, 2);
  assert.equal(settings.maxBodyBytes, 0, '0 MB: no limit, as nginx');
  assert.equal(settings.connectTimeout, 5);
  assert.equal(settings.serverTimeout, 90, 'HAProxy has one server-side inactivity timeout: the longer of read and send');
  assert.equal(settings.upstreamIdle, 0, 'no idle connection kept to the replicas');
  assert.equal(settings.bufferRequests, false);
  assert.equal(settings.sticky, true);
  assert.deepEqual(routeSettingsOf({ 'network.ingress.enable_cors': true, 'network.ingress.cors_allow_origin': 'https://x.example, *' }).settings.cors?.origins, ['*']);
  assert.equal(routeSettingsOf({ 'network.ingress.proxy_read_timeout_seconds': 0 }).settings.serverTimeout, 0, '0: the ingress\'s own limit');
  assert.equal(routeSettingsOf({ 'network.ingress.extra_headers': '[1]' }).settings.headers.length, 0);
});

test('checkSettings takes what routeSettingsOf makes and refuses anything that could break out of the configuration', () => {
  const good = routeSettingsOf({
    'network.ingress.whitelist_source_range': '10.0.0.0/8', 'network.ingress.enable_cors': true, 'network.ingress.cors_allow_origin': 'https://a.example',
    'network.ingress.extra_headers': '{"X-A":"it\'s 100%"}', 'network.ingress.basic_auth_env_var': 'U', 'network.ingress.enable_sticky_session': true,
  }, { U: `u:${SHA512}` }).settings;
  assert.deepEqual(checkSettings(JSON.parse(JSON.stringify(good))), good);
  assert.deepEqual(checkSettings(DEFAULT_ROUTE_SETTINGS), DEFAULT_ROUTE_SETTINGS);
  const broken: Array<Record<string, unknown>> = [
    { allow: ['10.0.0.0/8 }'] }, { allow: ['10.1.0.0/8'] }, { deny: 'x' },
    { users: [{ login: 'a b', hash: SHA512 }] }, { users: [{ login: 'a', hash: "x' insecure" }] }, { users: [{ login: 'a', hash: SHA512 }, { login: 'a', hash: SHA512 }] },
    { headers: [['X-A', 'a\nbackend x']] }, { headers: [['X A', 'b']] }, { headers: [['Connection', 'close']] },
    { cors: { origins: ["https://a' }"], methods: [], headers: [] } }, { cors: { origins: ['*'], methods: ['GET POST'], headers: [] } },
    { maxBodyBytes: -1 }, { maxBodyBytes: 1.5 }, { serverTimeout: '60' }, { connectTimeout: 1e12 }, { sticky: 'yes' },
  ];
  for (const change of broken) assert.throws(() => checkSettings({ ...good, ...change }), { name: 'IngressInputError' }, JSON.stringify(change));
  assert.throws(() => checkSettings(null), { name: 'IngressInputError' });
});
