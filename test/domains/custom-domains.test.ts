// Custom domains as a user sees them (issue 38), on the simulated engine with DNS answered by
// Debian's pebble-challtestsrv on loopback (every A query answers 127.0.0.1 unless the test sets
// another address): create with the public shape, internationalised names stored as punycode,
// list/get/status/edit/delete, every refusal (400 with its reason, 401, 403, 404, 409 naming the
// holding service only to its organization's members), checkCustomDomain's verdicts from what DNS
// answers, the background lifecycle saying that no ingress proxy runs here, and the official SDK
// (qovery-typescript-axios) driving the application and container calls unchanged.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ApplicationCustomDomainApi, Configuration, ContainerCustomDomainApi } from 'qovery-typescript-axios';
import { freeLoopbackPort } from '../../src/lib/processes.ts';
import { subscribeTasks } from '../../src/workers/handlers.ts';
import { seedEnvironment, seedService, type SeededEnvironment } from '../support/factories.ts';
import { eventually, expectErrorBody, listenOnLoopback, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { hasPebble, startPebble, type Pebble } from '../support/pebble.ts';

const UNKNOWN = '00000000-0000-4000-8000-00000000dead';
const INGRESS_DOMAIN = 'apps.berth.test';
const SHAPE = ['id', 'created_at', 'updated_at', 'domain', 'generate_certificate', 'use_cdn', 'validation_domain', 'status', 'message',
  'dns_record', 'certificate_expires_at', 'retry_at', 'checked_at'].sort();
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('custom domains', { skip: hasPebble() ? false : 'needs Debian\'s pebble and pebble-challtestsrv' }, () => {
  let t: TestApp;
  let pebble: Pebble;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let appId: string;
  let appName: string;
  let containerId: string;
  const orgs: string[] = [];

  /** a name of this run's own (the table is the whole installation's) */
  const fresh = (label = 'shop') => `${label}.${randomUUID().slice(0, 8)}.example.org`;
  const path = (id: string, rest = '', family = 'application') => `/${family}/${id}/customDomain${rest}`;
  const create = async (id: string, body: Record<string, unknown>, family = 'application', token = org.token) => {
    const r = await t.request('POST', path(id, '', family), { token, body });
    assert.equal(r.status, 201, r.raw);
    return r.body;
  };
  /** the validation domain berth gives a seeded service: <slug>-<env8>.<INGRESS_DOMAIN> */
  const hostOf = (name: string, environmentId = env.id) => `${name}-${environmentId.replace(/-/g, '').slice(0, 8)}.${INGRESS_DOMAIN}`;

  before(async () => {
    pebble = await startPebble({ httpPort: await freeLoopbackPort() });
    t = await startTestApp({ env: { DNS_RESOLVERS: pebble.dns, INGRESS_PUBLIC_ADDRESSES: '127.0.0.1', INGRESS_DOMAIN } });
    await subscribeTasks(t.ctx, ['domains.advance']);
    org = await seedOrganization(t);
    orgs.push(org.id);
    env = await seedEnvironment(t, org);
    appName = `web-${randomUUID().slice(0, 6)}`;
    appId = await seedService(t, env, 'APPLICATION', {}, appName);
    containerId = await seedService(t, env, 'CONTAINER', { image_name: 'nginx', tag: '1' }, `ctr-${randomUUID().slice(0, 6)}`);
  });
  after(async () => {
    // the rows of this file leave the installation-wide table (later files' workers would visit them)
    if (t) await t.ctx.db.query('delete from custom_domains where organization_id = any($1::uuid[])', [orgs]);
    await t?.close();
    await pebble?.close();
  });

  test('create: 201 with the whole shape and its defaults, waiting for DNS with the record to create', async () => {
    const domain = fresh();
    const r = await t.request('POST', path(appId), { token: org.token, body: { domain } });
    assert.equal(r.status, 201, r.raw);
    assert.deepEqual(Object.keys(r.body).sort(), SHAPE);
    const target = hostOf(appName);
    assert.deepEqual({ ...r.body, id: undefined, created_at: undefined, updated_at: undefined }, {
      id: undefined, created_at: undefined, updated_at: undefined, domain, generate_certificate: true, use_cdn: false,
      validation_domain: target, status: 'VALIDATION_PENDING', message: null,
      dns_record: { type: 'CNAME', name: domain, value: target }, certificate_expires_at: null, retry_at: null, checked_at: null,
    });
    assert.match(r.body.id, /^[0-9a-f-]{36}$/);
    assert.match(r.body.created_at, ISO);
    assert.equal(r.body.updated_at, r.body.created_at);

    // the explicit flags are kept; an apex domain is told to make an A record to the public address
    const apex = `${randomUUID().slice(0, 8)}.org`;
    const cdn = await create(appId, { domain: apex, generate_certificate: false, use_cdn: true });
    assert.deepEqual([cdn.generate_certificate, cdn.use_cdn, cdn.dns_record], [false, true, { type: 'A', name: apex, value: '127.0.0.1' }]);
  });

  test('an internationalised name is stored and answered as punycode, in lower case without its trailing dot', async () => {
    const zone = `${randomUUID().slice(0, 8)}.example.org`;
    const made = await create(appId, { domain: `Bücher.${zone.toUpperCase()}.` });
    assert.equal(made.domain, `xn--bcher-kva.${zone}`);
    assert.equal(made.dns_record.name, `xn--bcher-kva.${zone}`);
    const row = await t.ctx.db.query<{ domain: string }>('select domain from custom_domains where id = $1', [made.id]);
    assert.equal(row[0]!.domain, `xn--bcher-kva.${zone}`);
    // the same name in its other spelling is the same domain
    const again = expectErrorBody(await t.request('POST', path(appId), { token: org.token, body: { domain: `xn--bcher-kva.${zone}` } }), 409);
    assert.match(again.message, new RegExp(`xn--bcher-kva\\.${zone.replace(/\./g, '\\.')} is already used by the service "${appName}"`));
  });

  test('list, get, status, edit and delete (204, then 404)', async () => {
    const svc = await seedService(t, env, 'APPLICATION', {}, `list-${randomUUID().slice(0, 6)}`);
    const first = await create(svc, { domain: fresh('www') });
    const second = await create(svc, { domain: fresh('api'), generate_certificate: false });
    const viewer = await org.tokenFor('VIEWER');

    const list = await t.request('GET', path(svc), { token: viewer });
    assert.equal(list.status, 200, list.raw);
    assert.deepEqual(Object.keys(list.body), ['results']);
    assert.deepEqual(list.body.results.map((d: { id: string; domain: string }) => [d.id, d.domain]), [[first.id, first.domain], [second.id, second.domain]]);
    for (const d of list.body.results) assert.deepEqual(Object.keys(d).sort(), SHAPE);

    const got = await t.request('GET', path(svc, `/${first.id}`), { token: viewer });
    assert.equal(got.status, 200, got.raw);
    assert.equal(got.body.domain, first.domain);
    const status = await t.request('GET', path(svc, `/${first.id}/status`), { token: viewer });
    assert.equal(status.status, 200, status.raw);
    assert.deepEqual([status.body.id, status.body.domain], [first.id, first.domain]);
    assert.ok(['VALIDATION_PENDING', 'CERTIFICATE_PENDING', 'ACTIVE', 'FAILED'].includes(status.body.status));

    const renamed = fresh('shop');
    const edited = await t.request('PUT', path(svc, `/${first.id}`), { token: org.token, body: { domain: renamed, generate_certificate: false, use_cdn: true } });
    assert.equal(edited.status, 200, edited.raw);
    assert.deepEqual([edited.body.id, edited.body.domain, edited.body.generate_certificate, edited.body.use_cdn, edited.body.status],
      [first.id, renamed, false, true, 'VALIDATION_PENDING']);
    assert.ok(edited.body.updated_at >= first.created_at);
    // the old name is free again, for any service
    await create(appId, { domain: first.domain });
    // an edit keeping its own name is no conflict with itself
    assert.equal((await t.request('PUT', path(svc, `/${first.id}`), { token: org.token, body: { domain: renamed.toUpperCase() } })).status, 200);

    const deleted = await t.request('DELETE', path(svc, `/${second.id}`), { token: org.token });
    assert.equal(deleted.status, 204, deleted.raw);
    assert.equal(deleted.raw, '');
    assert.equal(expectErrorBody(await t.request('GET', path(svc, `/${second.id}`), { token: org.token }), 404).message, 'Custom domain not found');
    expectErrorBody(await t.request('GET', path(svc, `/${second.id}/status`), { token: org.token }), 404);
    expectErrorBody(await t.request('DELETE', path(svc, `/${second.id}`), { token: org.token }), 404);
    assert.deepEqual((await t.request('GET', path(svc), { token: org.token })).body.results.map((d: { id: string }) => d.id), [first.id]);
    // its name can be taken again
    await create(svc, { domain: second.domain });
  });

  test('400: an IP address, a wildcard without DNS-01, a name under INGRESS_DOMAIN, a bad label, a missing or unknown field', async () => {
    const post = (body: unknown) => t.request('POST', path(appId), { token: org.token, body });
    for (const [body, message] of [
      [{ domain: '192.0.2.10' }, /^domain: 192\.0\.2\.10 is an IP address; a custom domain is a host name$/],
      [{ domain: '2001:db8::1' }, /is an IP address/],
      [{ domain: '127.1' }, /is an IP address \(127\.0\.0\.1\)/],
      [{ domain: '*.example.org' }, /wildcard \(\*\.example\.org\) can only get a certificate through a DNS-01 challenge, and no DNS-01 provider is configured/],
      [{ domain: `shop.${INGRESS_DOMAIN}` }, /shop\.apps\.berth\.test is under INGRESS_DOMAIN \(apps\.berth\.test\)/],
      [{ domain: INGRESS_DOMAIN }, /under INGRESS_DOMAIN/],
      [{ domain: 'bad_label.example.org' }, /invalid label "bad_label"/],
      [{ domain: '-shop.example.org' }, /invalid label "-shop"/],
      [{ domain: 'localhost' }, /needs at least two labels/],
      [{ domain: 'shop example.org' }, /is not a valid host name/],
      [{ domain: '' }, /^domain/],
      [{ domain: 'a'.repeat(254) }, /^domain/],
      [{ domain: 42 }, /^domain/],
      [{}, /domain is required/],
      [{ generate_certificate: true }, /domain is required/],
      [{ domain: fresh(), certificate: 'mine' }, /certificate is not a known field/],
      [{ domain: fresh(), generate_certificate: 'yes' }, /^generate_certificate/],
    ] as const) {
      assert.match(expectErrorBody(await post(body), 400).message, message, JSON.stringify(body));
    }
    const made = await create(appId, { domain: fresh() });
    const put = (body: unknown) => t.request('PUT', path(appId, `/${made.id}`), { token: org.token, body });
    assert.match(expectErrorBody(await put({ domain: '*.example.org' }), 400).message, /DNS-01/);
    assert.match(expectErrorBody(await put({}), 400).message, /domain is required/);
    assert.match(expectErrorBody(await put({ domain: made.domain, use_cdn: true, extra: 1 }), 400).message, /extra is not a known field/);
    expectErrorBody(await t.request('GET', path(appId, '/not-a-uuid'), { token: org.token }), 400);
    // nothing of the refused requests was stored
    const rows = await t.ctx.db.query<{ domain: string }>('select domain from custom_domains where service_id = $1 and domain like $2', [appId, '%example.org']);
    assert.equal(rows.some((r) => r.domain.startsWith('*') || r.domain.includes('_')), false);
    assert.equal((await t.request('GET', path(appId, `/${made.id}`), { token: org.token })).body.domain, made.domain);
  });

  test('401 without a token, 403 for a VIEWER\'s writes and another organization, 404 for unknown services and domains', async () => {
    const made = await create(appId, { domain: fresh() });
    const body = { domain: fresh() };
    expectErrorBody(await t.request('GET', path(appId)), 401);
    expectErrorBody(await t.request('POST', path(appId), { body }), 401);
    expectErrorBody(await t.request('GET', `/application/${appId}/checkCustomDomain`), 401);

    const viewer = await org.tokenFor('VIEWER');
    expectErrorBody(await t.request('POST', path(appId), { token: viewer, body }), 403);
    expectErrorBody(await t.request('PUT', path(appId, `/${made.id}`), { token: viewer, body }), 403);
    expectErrorBody(await t.request('DELETE', path(appId, `/${made.id}`), { token: viewer }), 403);
    assert.equal((await t.request('GET', path(appId), { token: viewer })).status, 200);
    assert.equal((await t.request('GET', `/application/${appId}/checkCustomDomain`, { token: viewer })).status, 200);
    const devops = await org.tokenFor('DEVOPS');
    assert.equal((await t.request('POST', path(appId), { token: devops, body: { domain: fresh() } })).status, 201);

    const stranger = await seedOrganization(t);
    orgs.push(stranger.id);
    for (const [method, url] of [['GET', path(appId)], ['POST', path(appId)], ['GET', path(appId, `/${made.id}`)], ['DELETE', path(appId, `/${made.id}`)],
      ['GET', `/application/${appId}/checkCustomDomain`]] as const) {
      expectErrorBody(await t.request(method, url, { token: stranger.token, ...(method === 'POST' ? { body } : {}) }), 403);
    }

    assert.equal(expectErrorBody(await t.request('GET', path(UNKNOWN), { token: org.token }), 404).message, 'Application not found');
    assert.equal(expectErrorBody(await t.request('POST', path(UNKNOWN), { token: org.token, body }), 404).message, 'Application not found');
    assert.equal(expectErrorBody(await t.request('GET', path(UNKNOWN, '', 'container'), { token: org.token }), 404).message, 'Container not found');
    // a container's id on the application path, and the other way round
    assert.equal(expectErrorBody(await t.request('GET', path(containerId), { token: org.token }), 404).message, 'Application not found');
    assert.equal(expectErrorBody(await t.request('POST', path(containerId), { token: org.token, body }), 404).message, 'Application not found');
    assert.equal(expectErrorBody(await t.request('GET', path(appId, '', 'container'), { token: org.token }), 404).message, 'Container not found');
    expectErrorBody(await t.request('GET', `/application/${containerId}/checkCustomDomain`, { token: org.token }), 404);
    for (const [method, rest] of [['GET', `/${UNKNOWN}`], ['GET', `/${UNKNOWN}/status`], ['PUT', `/${UNKNOWN}`], ['DELETE', `/${UNKNOWN}`]] as const) {
      assert.equal(expectErrorBody(await t.request(method, path(appId, rest), { token: org.token, ...(method === 'PUT' ? { body } : {}) }), 404).message, 'Custom domain not found');
    }
    // a domain of another service is not found under this one
    const other = await seedService(t, env, 'APPLICATION', {}, `other-${randomUUID().slice(0, 6)}`);
    for (const method of ['GET', 'DELETE'] as const) {
      assert.equal(expectErrorBody(await t.request(method, path(other, `/${made.id}`), { token: org.token }), 404).message, 'Custom domain not found');
    }
    assert.equal((await t.request('GET', path(appId, `/${made.id}`), { token: org.token })).status, 200);
  });

  test('409 when another service holds the domain: named to a member of its organization, not to another organization', async () => {
    const domain = fresh('taken');
    await create(appId, { domain });
    const sibling = await seedService(t, env, 'CONTAINER', {}, `sibling-${randomUUID().slice(0, 6)}`);
    const mine = expectErrorBody(await t.request('POST', path(sibling, '', 'container'), { token: org.token, body: { domain: domain.toUpperCase() } }), 409);
    assert.equal(mine.message, `${domain} is already used by the service "${appName}"; a domain belongs to one service`);

    const stranger = await seedOrganization(t);
    orgs.push(stranger.id);
    const theirEnv = await seedEnvironment(t, stranger);
    const theirs = await seedService(t, theirEnv, 'APPLICATION', {}, `theirs-${randomUUID().slice(0, 6)}`);
    const refused = await t.request('POST', path(theirs), { token: stranger.token, body: { domain } });
    const body = expectErrorBody(refused, 409);
    assert.equal(body.message, `${domain} is already used by another service; a domain belongs to one service`);
    assert.doesNotMatch(refused.raw, new RegExp(`${appName}|${appId}|${org.id}`));

    // an edit onto a held name is refused the same way
    const own = await create(theirs, { domain: fresh() }, 'application', stranger.token);
    const edit = await t.request('PUT', path(theirs, `/${own.id}`), { token: stranger.token, body: { domain } });
    assert.equal(expectErrorBody(edit, 409).message, `${domain} is already used by another service; a domain belongs to one service`);
    assert.doesNotMatch(edit.raw, new RegExp(appName));
  });

  describe('checkCustomDomain', () => {
    test('a domain resolving to the public address matches; one pointing elsewhere names both addresses; a CDN domain only has to resolve', async () => {
      const svcName = `check-${randomUUID().slice(0, 6)}`;
      const svc = await seedService(t, env, 'APPLICATION', {}, svcName);
      const here = await create(svc, { domain: fresh('here') });
      const elsewhere = await create(svc, { domain: fresh('elsewhere') });
      const cdn = await create(svc, { domain: fresh('cdn'), use_cdn: true });
      await pebble.setA(elsewhere.domain, ['192.0.2.10']);
      await pebble.setA(cdn.domain, ['198.51.100.20']);

      const r = await t.request('GET', `/application/${svc}/checkCustomDomain`, { token: await org.tokenFor('VIEWER') });
      assert.equal(r.status, 200, r.raw);
      const byName = new Map(r.body.results.map((x: { domain_name: string }) => [x.domain_name, x]));
      assert.deepEqual(r.body.results.map((x: { domain_name: string }) => x.domain_name), [here.domain, elsewhere.domain, cdn.domain]);
      for (const x of r.body.results) assert.deepEqual(Object.keys(x).sort(), ['domain_name', 'error_details', 'status']);
      assert.deepEqual(byName.get(here.domain), { domain_name: here.domain, status: 'MATCHES_LOAD_BALANCER_HOST', error_details: null });
      assert.deepEqual(byName.get(cdn.domain), { domain_name: cdn.domain, status: 'RESOLVES_TO_IP', error_details: null });
      const wrong = byName.get(elsewhere.domain) as { status: string; error_details: string };
      assert.equal(wrong.status, 'DOMAIN_LINKED_TO_WRONG_HOST');
      const target = hostOf(svcName);
      assert.equal(wrong.error_details, `${elsewhere.domain} resolves to 192.0.2.10; it must point to ${target} (127.0.0.1): create a CNAME record ${elsewhere.domain} → ${target}`);

      // the same domain pointed back at berth matches
      await pebble.clearA(elsewhere.domain);
      const again = await t.request('GET', `/application/${svc}/checkCustomDomain`, { token: org.token });
      assert.equal(again.body.results.find((x: { domain_name: string }) => x.domain_name === elsewhere.domain).status, 'MATCHES_LOAD_BALANCER_HOST');
    });

    test('a container\'s domains are checked on its own path; a service without domains answers none', async () => {
      const domain = fresh('ctr');
      await create(containerId, { domain }, 'container');
      const r = await t.request('GET', `/container/${containerId}/checkCustomDomain`, { token: org.token });
      assert.equal(r.status, 200, r.raw);
      assert.deepEqual(r.body.results.find((x: { domain_name: string }) => x.domain_name === domain), { domain_name: domain, status: 'MATCHES_LOAD_BALANCER_HOST', error_details: null });
      const bare = await seedService(t, env, 'APPLICATION', {}, `bare-${randomUUID().slice(0, 6)}`);
      assert.deepEqual((await t.request('GET', `/application/${bare}/checkCustomDomain`, { token: org.token })).body, { results: [] });
    });
  });

  describe('the lifecycle in the background, on the simulated engine', () => {
    test('a domain pointing at berth says that no ingress proxy runs here to serve it', async () => {
      const made = await create(appId, { domain: fresh('life') });
      const status = await eventually(async () => {
        const r = await t.request('GET', path(appId, `/${made.id}/status`), { token: org.token });
        return r.body.checked_at && r.body.message ? r : null;
      }, 30_000, 200);
      assert.equal(status.body.status, 'VALIDATION_PENDING');
      assert.match(status.body.message, /DNS points at berth, but no ingress proxy runs here/);
      assert.match(status.body.checked_at, ISO);
      assert.equal(status.body.certificate_expires_at, null);
    });

    test('a domain pointing elsewhere waits, its message naming where it resolves and where it must point', async () => {
      const svcName = `wait-${randomUUID().slice(0, 6)}`;
      const svc = await seedService(t, env, 'APPLICATION', {}, svcName);
      const domain = fresh('away');
      await pebble.setA(domain, ['192.0.2.10']);
      const made = await create(svc, { domain });
      const status = await eventually(async () => {
        const r = await t.request('GET', path(svc, `/${made.id}/status`), { token: org.token });
        return r.body.message ? r : null;
      }, 30_000, 200);
      assert.equal(status.body.status, 'VALIDATION_PENDING');
      assert.equal(status.body.message, `${domain} resolves to 192.0.2.10; it must point to ${hostOf(svcName)} (127.0.0.1): create a CNAME record ${domain} → ${hostOf(svcName)}`);
    });
  });

  test('the official SDK drives the application and container custom-domain calls unchanged', async () => {
    const base = await listenOnLoopback(t);
    const config = new Configuration({ basePath: base, apiKey: `Token ${org.token}` });
    const apps = new ApplicationCustomDomainApi(config);
    const domain = fresh('sdk');
    const created = await apps.createApplicationCustomDomain(appId, { domain, generate_certificate: true });
    assert.equal(created.status, 201);
    assert.equal(created.data.domain, domain);
    assert.equal(created.data.status, 'VALIDATION_PENDING');
    assert.equal(created.data.validation_domain, hostOf(appName));
    const listed = await apps.listApplicationCustomDomain(appId);
    assert.ok(listed.data.results?.some((d) => d.id === created.data.id));
    const status = await apps.getCustomDomainStatus(appId, created.data.id);
    assert.equal(status.data.id, created.data.id);
    const renamed = fresh('sdk2');
    const edited = await apps.editCustomDomain(appId, created.data.id, { domain: renamed, generate_certificate: false, use_cdn: true });
    assert.deepEqual([edited.data.domain, edited.data.generate_certificate, edited.data.use_cdn], [renamed, false, true]);
    const checked = await apps.checkApplicationCustomDomain(appId);
    assert.deepEqual(checked.data.results.find((r) => r.domain_name === renamed), { domain_name: renamed, status: 'RESOLVES_TO_IP', error_details: null });
    assert.equal((await apps.deleteCustomDomain(appId, created.data.id)).status, 204);
    await assert.rejects(apps.getCustomDomainStatus(appId, created.data.id), (err: { response?: { status: number } }) => err.response?.status === 404);

    const containers = new ContainerCustomDomainApi(config);
    const cdomain = fresh('sdkctr');
    const c = await containers.createContainerCustomDomain(containerId, { domain: cdomain, generate_certificate: true });
    assert.equal(c.status, 201);
    assert.ok((await containers.listContainerCustomDomain(containerId)).data.results?.some((d) => d.domain === cdomain));
    assert.equal((await containers.getContainerCustomDomainStatus(containerId, c.data.id)).data.domain, cdomain);
    const ce = await containers.editContainerCustomDomain(containerId, c.data.id, { domain: cdomain, generate_certificate: false });
    assert.equal(ce.data.generate_certificate, false);
    assert.equal((await containers.checkContainerCustomDomain(containerId)).data.results.find((r) => r.domain_name === cdomain)?.status, 'MATCHES_LOAD_BALANCER_HOST');
    assert.equal((await containers.deleteContainerCustomDomain(containerId, c.data.id)).status, 204);
    // the SDK's 409 carries berth's message
    await containers.createContainerCustomDomain(containerId, { domain: cdomain, generate_certificate: true });
    await assert.rejects(apps.createApplicationCustomDomain(appId, { domain: cdomain, generate_certificate: true }),
      (err: { response?: { status: number; data: { message: string } } }) => err.response?.status === 409 && /already used by the service/.test(err.response.data.message));
  });
});
