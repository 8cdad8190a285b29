// `berth domains [list|add|rm|check] <service> [domain]`: the real binary against a berth whose
// custom-domain checks ask pebble-challtestsrv on loopback (every name answers 127.0.0.1 unless set
// otherwise). add prints the DNS record to create; the list shows status, record and message;
// an internationalised name is shown in both spellings and removed by either; check names where
// a domain points when it is not berth; refusals are one line with their exit codes; --json
// carries the API's objects.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freeLoopbackPort } from '../../src/lib/processes.ts';
import { hasPebble, startPebble, type Pebble } from '../support/pebble.ts';
import { berth, seedShop, startCliServer, type CliServer } from './support.ts';

const INGRESS_DOMAIN = 'apps.berth.test';

describe('berth domains', { skip: hasPebble() ? false : 'needs Debian\'s pebble and pebble-challtestsrv' }, () => {
  let s: CliServer;
  let pebble: Pebble;
  let shop: Awaited<ReturnType<typeof seedShop>>;
  let env: Record<string, string>;
  let target: string[];
  let webHost: string;
  const zone = `${randomUUID().slice(0, 8)}.example.org`;
  const run = (args: string[]) => berth(s.newConfigDir(), [...args, ...target], { env });

  before(async () => {
    pebble = await startPebble({ httpPort: await freeLoopbackPort() });
    s = await startCliServer({ env: { DNS_RESOLVERS: pebble.dns, INGRESS_PUBLIC_ADDRESSES: '127.0.0.1', INGRESS_DOMAIN } });
    shop = await seedShop(s, { project: `domains-${Date.now()}`, environment: 'production' }, ['web', 'api']);
    await s.api('POST', `/environment/${shop.environmentId}/database`, { name: 'cache', type: 'REDIS', version: '7', mode: 'CONTAINER' });
    env = { BERTH_URL: s.url, BERTH_TOKEN: s.org.token };
    target = ['--project', shop.projectId, '--environment', shop.environmentId];
    webHost = `web-${shop.environmentId.replace(/-/g, '').slice(0, 8)}.${INGRESS_DOMAIN}`;
  });
  after(async () => {
    if (s) await s.t.ctx.db.query('delete from custom_domains where organization_id = $1', [s.org.id]);
    await s?.close();
    await pebble?.close();
  });

  test('add prints the record to create; list shows it with the status; check says it points at berth', async () => {
    const domain = `shop.${zone}`;
    const added = await run(['domains', 'add', 'web', domain]);
    assert.equal(added.code, 0, added.stderr);
    assert.equal(added.stdout, [
      `added ${domain} to web: VALIDATION_PENDING (waiting for DNS)`,
      'create this record at your DNS provider:',
      `  CNAME  ${domain}  ${webHost}`,
      `  (${domain} is an alias of ${webHost}, berth's host name of web)`,
      `berth then orders its certificate and serves https://${domain}/`,
      'see where it stands: berth domains check web',
      '',
    ].join('\n'));

    for (const args of [['domains', 'web'], ['domains', 'list', 'web']]) {
      const listed = await run(args);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /^ DOMAIN\s+STATUS\s+RECORD TO CREATE\s+MESSAGE\n/);
      assert.match(listed.stdout, new RegExp(`${domain.replace(/\./g, '\\.')}\\s+VALIDATION_PENDING\\s+CNAME ${domain.replace(/\./g, '\\.')} → ${webHost.replace(/\./g, '\\.')}\\s+`));
    }

    const checked = await run(['domains', 'check', 'web']);
    assert.equal(checked.code, 0, checked.stderr);
    assert.match(checked.stdout, /^ DOMAIN\s+DNS\s+DETAILS\n/);
    assert.match(checked.stdout, new RegExp(`${domain.replace(/\./g, '\\.')}\\s+MATCHES_LOAD_BALANCER_HOST\\s+points at berth`));
  });

  test('check names where a domain points when it is not berth, and what it must point to', async () => {
    const domain = `away.${zone}`;
    await pebble.setA(domain, ['192.0.2.10']);
    assert.equal((await run(['domains', 'add', 'api', domain])).code, 0);
    const checked = await run(['domains', 'check', 'api']);
    assert.equal(checked.code, 0, checked.stderr);
    const apiHost = `api-${shop.environmentId.replace(/-/g, '').slice(0, 8)}.${INGRESS_DOMAIN}`;
    const line = checked.stdout.split('\n').find((l) => l.includes('DOMAIN_LINKED_TO_WRONG_HOST'));
    assert.deepEqual(line?.trim().split(/ {2,}/), [domain, 'DOMAIN_LINKED_TO_WRONG_HOST',
      `${domain} resolves to 192.0.2.10; it must point to ${apiHost} (127.0.0.1): create a CNAME record ${domain} → ${apiHost}`], checked.stdout);
    const json = JSON.parse((await run(['domains', 'check', 'api', '--json'])).stdout);
    assert.deepEqual(json.map((r: { domain_name: string; status: string }) => [r.domain_name, r.status]), [[domain, 'DOMAIN_LINKED_TO_WRONG_HOST']]);
  });

  test('an internationalised name: stored as punycode, shown in both spellings, removed by either', async () => {
    const added = await run(['domains', 'add', 'web', `Bücher.${zone}`, '--cdn', '--no-certificate', '--json']);
    assert.equal(added.code, 0, added.stderr);
    const made = JSON.parse(added.stdout);
    assert.deepEqual([made.domain, made.generate_certificate, made.use_cdn], [`xn--bcher-kva.${zone}`, false, true]);
    const listed = await run(['domains', 'list', 'web']);
    assert.ok(listed.stdout.includes(`xn--bcher-kva.${zone} (bücher.${zone})`), listed.stdout);
    const removed = await run(['domains', 'rm', 'web', `BÜCHER.${zone}.`]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(removed.stdout, `removed xn--bcher-kva.${zone} (bücher.${zone}) from web: its route and certificate leave the ingress\n`);
    const json = JSON.parse((await run(['domains', 'web', '--json'])).stdout);
    assert.deepEqual(json.map((d: { domain: string }) => d.domain), [`shop.${zone}`]);
  });

  test('rm by id; an unknown domain names those there (exit 4)', async () => {
    const made = JSON.parse((await run(['domains', 'add', 'api', `gone.${zone}`, '--json'])).stdout);
    const missing = await run(['domains', 'rm', 'api', `nope.${zone}`]);
    assert.equal(missing.code, 4);
    assert.equal(missing.stderr, `berth: no custom domain "nope.${zone}" on api (there: away.${zone}, gone.${zone})\n`);
    const removed = await run(['domains', 'remove', 'api', made.id]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, new RegExp(`^removed gone\\.${zone.replace(/\./g, '\\.')} from api`));
  });

  test('refusals are one line with their exit codes: the API\'s 400 and 409, a database, an unknown service, a missing argument', async () => {
    const wildcard = await run(['domains', 'add', 'web', `*.${zone}`]);
    assert.equal(wildcard.code, 1);
    assert.match(wildcard.stderr, /^berth: 400 Bad Request: domain: a wildcard .* no DNS-01 provider is configured \(request [^)]+\)\n$/);
    const taken = await run(['domains', 'add', 'api', `SHOP.${zone}`]);
    assert.equal(taken.code, 1);
    assert.match(taken.stderr, new RegExp(`^berth: 409 Conflict: shop\\.${zone.replace(/\./g, '\\.')} is already used by the service "web"`));
    const database = await run(['domains', 'list', 'cache']);
    assert.equal(database.code, 2);
    assert.equal(database.stderr, 'berth: cache is a database: only applications and containers have custom domains\n');
    const unknown = await run(['domains', 'check', 'nope']);
    assert.equal(unknown.code, 4);
    assert.match(unknown.stderr, /no service "nope" in environment/);
    const usage = await run(['domains', 'add', 'web']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /missing required argument 'domain'/);
    const help = await berth(s.newConfigDir(), ['domains', '--help']);
    assert.equal(help.code, 0);
    for (const word of ['list', 'add', 'rm', 'check', 'berth domains add web shop.example.com']) assert.ok(help.stdout.includes(word), word);
  });

  test('a VIEWER lists and checks but cannot add (exit 4, the API\'s 403)', async () => {
    const viewer = await s.org.tokenFor('VIEWER');
    const as = (args: string[]) => berth(s.newConfigDir(), [...args, ...target], { env: { BERTH_URL: s.url, BERTH_TOKEN: viewer } });
    assert.equal((await as(['domains', 'web'])).code, 0);
    assert.equal((await as(['domains', 'check', 'web'])).code, 0);
    const refused = await as(['domains', 'add', 'web', `viewer.${zone}`]);
    assert.equal(refused.code, 4);
    assert.match(refused.stderr, /^berth: 403 Forbidden: /);
  });
});
