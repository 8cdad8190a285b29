import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boundAddress, haproxyConfig, mapFiles, parseMap, parseServers, parseSessions, serverName, slotNumber, slotsFor } from './haproxy-config.ts';
import { checkHost, checkRoute, checkUpstream } from './routes.ts';

test('hosts are lower-case DNS names strictly below the ingress domain', () => {
  assert.equal(checkHost('Web-0a1b2c3d.localhost', 'localhost'), 'web-0a1b2c3d.localhost');
  assert.equal(checkHost('p80-web.apps.example.com', 'apps.example.com'), 'p80-web.apps.example.com');
  for (const bad of ['localhost', 'web.example.com', 'web.notlocalhost', '-web.localhost', 'we_b.localhost', 'a..localhost', '*.localhost', `${'a'.repeat(64)}.localhost`, 'web.localhost.', 'a b.localhost']) {
    assert.throws(() => checkHost(bad, 'localhost'), { name: 'IngressInputError' }, bad);
  }
  assert.equal(checkHost('any.example.org'), 'any.example.org', 'without a domain only the DNS syntax is checked');
});

test('upstreams are 127.0.0.1:<port> and nothing else', () => {
  assert.equal(checkUpstream('127.0.0.1:8080'), '127.0.0.1:8080');
  assert.equal(checkUpstream('127.0.0.1:08080'), '127.0.0.1:8080');
  for (const bad of ['127.0.0.1:0', '127.0.0.1:65536', 'localhost:80', '10.0.0.5:80', '127.0.0.2:80', '[::1]:80', 'unix//var/run/docker.sock', '127.0.0.1:80 ', '127.0.0.1']) {
    assert.throws(() => checkUpstream(bad), { name: 'IngressInputError' }, bad);
  }
});

test('a route needs a safe id, a host and an upstream; duplicates are dropped', () => {
  assert.deepEqual(checkRoute({ id: 'svc-1_a.b', hosts: ['a.localhost', 'A.localhost'], upstreams: ['127.0.0.1:1', '127.0.0.1:1'] }, 'localhost'),
    { id: 'svc-1_a.b', hosts: ['a.localhost'], upstreams: ['127.0.0.1:1'] });
  assert.throws(() => checkRoute({ id: 'a/b', hosts: ['a.localhost'], upstreams: ['127.0.0.1:1'] }), /route id/);
  assert.throws(() => checkRoute({ id: 'a b', hosts: ['a.localhost'], upstreams: ['127.0.0.1:1'] }), /route id/);
  assert.throws(() => checkRoute({ id: 'a', hosts: [], upstreams: ['127.0.0.1:1'] }), /no host/);
  assert.throws(() => checkRoute({ id: 'a', hosts: ['a.localhost'], upstreams: [] }), /no upstream/);
});

test('the config: one frontend on host:port routing by map, a 404 fallback, slot backends with the saved servers', () => {
  const routes = [{ slot: 1, id: 'x', hosts: ['x.localhost', 'p80-x.localhost'], upstreams: ['127.0.0.1:5', '127.0.0.1:6'] }];
  const config = haproxyConfig({ host: '0.0.0.0', port: 8000, slots: 3, routes });
  assert.equal(boundAddress(config), '0.0.0.0:8000');
  assert.equal(boundAddress(haproxyConfig({ host: '::', port: 80, slots: 1, routes: [] })), '[::]:80');
  assert.match(config, /stats socket unix@admin\.sock mode 600 level admin/);
  assert.match(config, /use_backend %\[req\.hdr\(host\),field\(1,:\),lower,map\(hosts\.map\)\]\n {2}default_backend berth-fallback/);
  assert.match(config, /backend berth-fallback\n(?: {2}.*\n)* {2}http-request return status 404 .*string "no berth service at this address\\n"/);
  assert.deepEqual([...config.matchAll(/^backend (berth-slot-\d+)$/gm)].map((m) => m[1]), ['berth-slot-0', 'berth-slot-1', 'berth-slot-2']);
  // every slot has the default rules (decision 0337); the saved servers carry their options
  assert.match(config, /backend berth-slot-1\n {2}balance roundrobin\n(?: {2}(?!server).*\n)+ {2}server u5 127\.0\.0\.1:5 pool-purge-delay 60s\n {2}server u6 127\.0\.0\.1:6 pool-purge-delay 60s\n/);
  assert.match(config, /backend berth-slot-0\n {2}balance roundrobin\n {2}timeout connect 60s\n {2}timeout server 60s\n {2}http-request deny deny_status 413 if \{ req\.hdr_val\(content-length\) gt 104857600 \}\n {2}http-request wait-for-body time 30s\n\n/);
  assert.match(config, /acl berth_rules str\(\),map\(rules\.map\) -m found/);
  assert.doesNotMatch(config, /hard-stop-after/, 'an old worker keeps its connections after a reload until they end');
  const maps = mapFiles(routes, 3);
  assert.deepEqual({ hosts: maps.hosts, routes: maps.routes }, { hosts: 'x.localhost berth-slot-1\np80-x.localhost berth-slot-1\n', routes: 'berth-slot-1 x\n' });
  assert.deepEqual(maps.rules.split('\n').filter(Boolean).map((l) => l.split(' ')[0]), ['berth-slot-0', 'berth-slot-1', 'berth-slot-2'], 'every slot has its rules digest');
  assert.equal(new Set(maps.rules.split('\n').filter(Boolean).map((l) => l.split(' ')[1])).size, 1, 'default rules everywhere: one digest');
});

test('names and pool sizes', () => {
  assert.equal(serverName('127.0.0.1:43133'), 'u43133');
  assert.equal(slotNumber('berth-slot-12'), 12);
  assert.equal(slotNumber('berth-fallback'), null);
  assert.equal(slotNumber('berth-slot-x'), null);
  assert.equal(slotsFor(0), 128);
  assert.equal(slotsFor(127), 128);
  assert.equal(slotsFor(128), 256);
  assert.equal(slotsFor(5, 4), 8);
});

test('the runtime API\'s answers are read back', () => {
  assert.deepEqual(parseMap('0x55a749c1e0f0 a.localhost berth-slot-0\n0x55a749c1e1f0 b.localhost berth-slot-3\n\n'),
    [['a.localhost', 'berth-slot-0'], ['b.localhost', 'berth-slot-3']]);
  const servers = parseServers([
    '1',
    '# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr srv_agent_port',
    '4 berth-slot-0 1 u43133 127.0.0.1 2 0 1 1 0 1 0 0 0 0 0 0 - 43133 - 0 0 - - 0',
    '4 berth-slot-0 2 u43134 127.0.0.1 0 1 1 1 0 1 0 0 0 0 0 0 - 43134 - 0 0 - - 0',
    '',
  ].join('\n'));
  assert.deepEqual(servers, [
    { backend: 'berth-slot-0', name: 'u43133', upstream: '127.0.0.1:43133', maint: false },
    { backend: 'berth-slot-0', name: 'u43134', upstream: '127.0.0.1:43134', maint: true },
  ]);
  const sessions = parseSessions([
    '# pxname,svname,qcur,qmax,scur,smax,slim,stot,',
    'berth,FRONTEND,,,3,4,9985,10,',
    'berth-slot-0,u43134,0,0,2,2,,5,',
    'berth-slot-0,BACKEND,0,0,2,2,,5,',
  ].join('\n'));
  assert.deepEqual([...sessions], [['berth-slot-0/u43134', 2]]);
});
