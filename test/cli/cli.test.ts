// The client commands as a user drives them: the real `berth` binary against a real listening
// berth. Login from stdin (token never in argv, file mode 0600), context by names, status and
// services with --json, deploy --wait to the final status and its exit code (success and the
// fail-deploy marker), logs -f receiving lines as they are written, env set then redeploy,
// secrets never printed, whoami with the role in each organization, and errors as one line with
// their documented exit codes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { insertLog } from '../../src/modules/deployments/deployments.repo.ts';
import { eventually } from '../support/harness.ts';
import { freePort } from '../support/processes.ts';
import { berth, BERTH, cliEnv, seedShop, startCliServer, type CliServer } from './support.ts';

describe('berth client commands', () => {
  let s: CliServer;
  let dir: string;
  let shop: Awaited<ReturnType<typeof seedShop>>;
  const project = `shop-${Date.now()}`;
  before(async () => {
    s = await startCliServer();
    dir = s.newConfigDir();
    shop = await seedShop(s, { project, environment: 'Staging' }, ['web', 'worker', 'broken-fail-deploy']);
  });
  after(async () => { await s.close(); });

  test('--help exits 0 and documents commands, examples and exit codes', async () => {
    const top = await berth(dir, ['--help']);
    assert.equal(top.code, 0);
    for (const word of ['login', 'context', 'status', 'deploy', 'logs', 'env', 'secret', 'open', 'serve', 'Exit codes:', '6  --wait']) assert.ok(top.stdout.includes(word), word);
    const sub = await berth(dir, ['deploy', '--help']);
    assert.equal(sub.code, 0);
    assert.match(sub.stdout, /Examples:\n {2}\$ berth deploy web --wait/);
    const bad = await berth(dir, ['deploy']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /missing required argument 'service'/);
  });

  test('before login: one line, exit 3', async () => {
    const r = await berth(s.newConfigDir(), ['status']);
    assert.equal(r.code, 3);
    assert.equal(r.stderr.trim(), 'berth: not logged in: run berth login URL');
  });

  test('login reads the token from stdin, checks it, and stores it with mode 0600', async () => {
    const refused = await berth(dir, ['login', s.url], { input: 'berth_not-a-real-token\n' });
    assert.equal(refused.code, 3);
    assert.equal(refused.stderr.trim().split('\n').length, 1);
    assert.match(refused.stderr, /^berth: 401 Unauthorized: .*run berth login/);
    const closed = await freePort();
    const unreachable = await berth(dir, ['login', `http://127.0.0.1:${closed}`], { input: s.org.token });
    assert.equal(unreachable.code, 5);
    assert.equal(unreachable.stderr, `berth: cannot reach http://127.0.0.1:${closed}: ECONNREFUSED\n`);

    const r = await berth(dir, ['login', s.url, '--name', 'local'], { input: `${s.org.token}\n` });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`logged in to ${s.url} as server "local" \\(organization ${s.org.name}\\)`));
    const file = join(dir, 'config.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(dir).mode & 0o077, 0);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(saved.current, 'local');
    assert.equal(saved.servers.local.token, s.org.token);
    const who = await berth(dir, ['whoami', '--json']);
    assert.equal(who.code, 0, who.stderr);
    const info = JSON.parse(who.stdout);
    assert.equal(info.url, s.url);
    assert.deepEqual(info.organizations, [{ id: s.org.id, name: s.org.name, role: 'OWNER', permissions: { read: true, write: true, manage: true, own: true } }]);
    assert.equal(info.principal.kind, 'TOKEN');
  });

  test('whoami names the token and its role in its organization, and what the role allows', async () => {
    for (const [role, may] of [['DEVOPS', 'read, write'], ['VIEWER', 'read']] as const) {
      const made = await s.t.request('POST', `/organization/${s.org.id}/apiToken`, { token: s.org.token, body: { name: `cli-${role.toLowerCase()}`, role } });
      assert.equal(made.status, 201, made.raw);
      const env = { BERTH_URL: s.url, BERTH_TOKEN: made.body.token };
      const human = await berth(s.newConfigDir(), ['whoami'], { env });
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, new RegExp(`^as\\s+token cli-${role.toLowerCase()}$`, 'm'));
      assert.match(human.stdout, /ORGANIZATIONS THIS TOKEN SEES\s+ROLE\s+MAY\s+ID/);
      assert.match(human.stdout, new RegExp(`^ ${s.org.name}\\s+${role}\\s+${may}\\s+${s.org.id}$`, 'm'));
      const json = JSON.parse((await berth(s.newConfigDir(), ['whoami', '--json'], { env })).stdout);
      assert.deepEqual(json.principal, { kind: 'TOKEN', id: made.body.id, name: `cli-${role.toLowerCase()}` });
      assert.deepEqual(json.organizations.map((o: { role: string; permissions: { write: boolean; manage: boolean } }) => [o.role, o.permissions.write, o.permissions.manage]),
        [[role, role === 'DEVOPS', false]]);
    }
  });

  test('context set by names (any case) is shown by context and used by status and services', async () => {
    const set = await berth(dir, ['context', 'set', '--project', project.toUpperCase(), '--environment', 'staging']);
    assert.equal(set.code, 0, set.stderr);
    const ctx = JSON.parse((await berth(dir, ['context', '--json'])).stdout);
    assert.deepEqual(ctx.project, { id: shop.projectId, name: project });
    assert.deepEqual(ctx.environment, { id: shop.environmentId, name: 'Staging' });
    const wrong = await berth(dir, ['context', 'set', '--environment', 'nope']);
    assert.equal(wrong.code, 4);
    assert.match(wrong.stderr, /^berth: no environment "nope" in project shop-\d+ \(there: Staging\)\n$/);

    const status = await berth(dir, ['status']);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /SERVICE\s+TYPE\s+STATE\s+VERSION\s+LAST DEPLOYMENT/);
    assert.match(status.stdout, /web\s+application\s+STOPPED\s+never deployed\s+never/);
    const services = JSON.parse((await berth(dir, ['services', '--json'])).stdout);
    assert.deepEqual(services.map((x: { name: string }) => x.name).sort(), ['broken-fail-deploy', 'web', 'worker']);
    // ids work wherever names do, and flags override the context
    const byIds = await berth(dir, ['services', '--json', '--project', shop.projectId, '--environment', shop.environmentId]);
    assert.equal(JSON.parse(byIds.stdout).length, 3);
  });

  test('deploy --wait follows the deployment to DEPLOYED and exits 0', async () => {
    const r = await berth(dir, ['deploy', 'web', '--wait']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /web: deploying \(deployment [0-9a-f-]{36}\)/);
    assert.match(r.stdout, /build {2}\[simulated\] Cloning https:\/\/github\.com\/example\/app\.git/);
    assert.match(r.stdout, /● DEPLOYING/);
    assert.match(r.stdout, /✔ DEPLOYED in \d+\.\ds\n$/);
    const status = JSON.parse((await berth(dir, ['status', '--json'])).stdout);
    const web = status.services.find((x: { name: string }) => x.name === 'web');
    assert.equal(web.state, 'RUNNING');
    assert.equal(web.last_deployment.status, 'DEPLOYED');
  });

  test('deploy --wait of a failing service exits 6 with the final status in one line', async () => {
    const r = await berth(dir, ['deploy', 'broken-fail-deploy', '--wait']);
    assert.equal(r.code, 6, r.stdout + r.stderr);
    assert.match(r.stdout, /✖ DEPLOYMENT_ERROR/);
    assert.match(r.stderr, /^berth: broken-fail-deploy: DEPLOYMENT_ERROR — .+ \(deployment [0-9a-f-]{36}\)\n$/);
    const json = await berth(dir, ['redeploy', 'broken-fail-deploy', '--wait', '--json']);
    assert.equal(json.code, 6);
    assert.equal(JSON.parse(json.stdout).status, 'DEPLOYMENT_ERROR');
  });

  test('deploy without --wait answers at once with the queued deployment', async () => {
    const r = await berth(dir, ['restart', 'web', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const d = JSON.parse(r.stdout);
    assert.equal(d.action, 'RESTART');
    assert.equal(d.service_id, shop.ids.web);
    await eventually(async () => (await s.t.request('GET', `/deployment/${d.id}`, { token: s.org.token })).body.finished, 10_000);
  });

  test('logs -f prints lines as they are written, after the tail', async () => {
    const child = spawn(process.execPath, [BERTH, 'logs', 'worker', '-f', '--tail', '0', '--json'], { env: cliEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await new Promise((r) => setTimeout(r, 1500));
      await insertLog(s.t.ctx.db, null, shop.ids.worker!, 'RUNTIME', 'first live line');
      await eventually(async () => out.includes('first live line'), 10_000, 20);
      await insertLog(s.t.ctx.db, null, shop.ids.worker!, 'RUNTIME', 'second live line');
      await eventually(async () => out.includes('second live line'), 10_000, 20);
      const lines = out.trim().split('\n').map((l) => JSON.parse(l));
      assert.deepEqual(lines.map((l) => l.message), ['first live line', 'second live line']);
      assert.equal(lines[0].service_id, shop.ids.worker);
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 0);
    const tail = await berth(dir, ['logs', 'worker', '--tail', '1']);
    assert.match(tail.stdout, /^\d\d:\d\d:\d\d\.\d{3} app {4}second live line\n$/);
  });

  test('logs -f rides over a cut stream: it reconnects after the last line, losing and repeating nothing', async () => {
    const child = spawn(process.execPath, [BERTH, 'logs', 'worker', '-f', '--tail', '0', '--json'], { env: cliEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await new Promise((r) => setTimeout(r, 1500));
      await insertLog(s.t.ctx.db, null, shop.ids.worker!, 'RUNTIME', 'cut-1');
      await eventually(async () => out.includes('cut-1'), 10_000, 20);
      await s.t.ctx.services.streams.close(); // what a restarting API process does to its streams
      await insertLog(s.t.ctx.db, null, shop.ids.worker!, 'RUNTIME', 'cut-2');
      await eventually(async () => out.includes('cut-2'), 10_000, 20);
      await insertLog(s.t.ctx.db, null, shop.ids.worker!, 'RUNTIME', 'cut-3');
      await eventually(async () => out.includes('cut-3'), 10_000, 20);
      assert.deepEqual(out.trim().split('\n').map((l) => JSON.parse(l).message), ['cut-1', 'cut-2', 'cut-3']);
      assert.match(err, /the stream was cut; reconnecting/);
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 0);
  });

  test('env set on a service then redeploy: the service is out of date, then up to date', async () => {
    const set = await berth(dir, ['env', 'set', 'LOG_LEVEL=debug', 'GREETING=hello=world', '--service', 'web']);
    assert.equal(set.code, 0, set.stderr);
    const listed = JSON.parse((await berth(dir, ['env', 'list', '--service', 'web', '--json'])).stdout);
    const mine = listed.filter((v: { scope: string }) => v.scope === 'APPLICATION');
    assert.deepEqual(mine.map((v: { key: string; value: string }) => `${v.key}=${v.value}`), ['GREETING=hello=world', 'LOG_LEVEL=debug']);
    const before = JSON.parse((await berth(dir, ['status', '--json'])).stdout).services.find((x: { name: string }) => x.name === 'web');
    assert.equal(before.deployment_status, 'OUT_OF_DATE');
    const r = await berth(dir, ['redeploy', 'web', '--wait']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const after = JSON.parse((await berth(dir, ['status', '--json'])).stdout).services.find((x: { name: string }) => x.name === 'web');
    assert.equal(after.deployment_status, 'UP_TO_DATE');
    // set again changes in place; unset removes
    assert.equal((await berth(dir, ['env', 'set', 'LOG_LEVEL=info', '--service', 'web'])).code, 0);
    assert.equal((await berth(dir, ['env', 'unset', 'GREETING', '--service', 'web'])).code, 0);
    const now = JSON.parse((await berth(dir, ['env', 'list', '--service', 'web', '--json'])).stdout).filter((v: { scope: string }) => v.scope === 'APPLICATION');
    assert.deepEqual(now.map((v: { key: string; value: string }) => `${v.key}=${v.value}`), ['LOG_LEVEL=info']);
    const missing = await berth(dir, ['env', 'unset', 'GREETING', '--service', 'web']);
    assert.equal(missing.code, 4);
    assert.equal(missing.stderr, 'berth: no variable GREETING on application web\n');
  });

  test('project and environment scopes; secrets from stdin are stored and never printed', async () => {
    assert.equal((await berth(dir, ['env', 'set', 'REGION=eu', '--project'])).code, 0);
    assert.equal((await berth(dir, ['env', 'set', 'TIER=staging'])).code, 0);
    const secret = await berth(dir, ['secret', 'set', 'API_KEY', '--environment'], { input: 'sup3r-s3cret\n' });
    assert.equal(secret.code, 0, secret.stderr);
    const list = await berth(dir, ['env', 'list', '--service', 'worker', '--json']);
    assert.ok(!list.stdout.includes('sup3r-s3cret'));
    const byKey = Object.fromEntries(JSON.parse(list.stdout).map((v: { key: string }) => [v.key, v]));
    assert.equal(byKey.REGION.scope, 'PROJECT');
    assert.equal(byKey.TIER.scope, 'ENVIRONMENT');
    assert.equal(byKey.API_KEY.is_secret, true);
    assert.equal(byKey.API_KEY.value, null);
    const text = await berth(dir, ['env', 'list']);
    assert.match(text.stdout, /API_KEY\s+\(secret\)\s+environment/);
    const rows = await s.t.ctx.db.query<{ value: string | null; value_sealed: string | null }>(
      `select * from variables where key = 'API_KEY' and environment_id = $1`, [shop.environmentId]);
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows[0]).includes('sup3r-s3cret'), 'sealed at rest');
    assert.equal((await berth(dir, ['secret', 'unset', 'API_KEY'])).code, 0);
  });

  test('errors: unknown service (4), another server name (3), open without public links', async () => {
    const unknown = await berth(dir, ['deploy', 'nope']);
    assert.equal(unknown.code, 4);
    assert.equal(unknown.stderr, 'berth: no service "nope" in environment Staging (there: web, worker, broken-fail-deploy)\n');
    const other = await berth(dir, ['status', '--server', 'prod']);
    assert.equal(other.code, 3);
    assert.match(other.stderr, /no server named "prod" \(known: local\)/);
    const open = await berth(dir, ['open', 'web']);
    if (open.code === 0) {
      assert.match(open.stdout, /^https?:\/\/\S+\n/);
      // the addresses on stdout, why they do not answer on stderr (the server is on the simulated engine)
      assert.match(open.stderr, /^berth: the simulated engine runs nothing; they answer once a real engine/);
    }
    else {
      assert.equal(open.code, 4);
      assert.match(open.stderr, /^berth: this berth does not serve public links \(GET \/application\/\{id\}\/link answered 404/);
    }
  });

  test('logout forgets the token', async () => {
    const other = s.newConfigDir();
    assert.equal((await berth(other, ['login', s.url], { input: s.org.token })).code, 0);
    const out = await berth(other, ['logout']);
    assert.equal(out.code, 0);
    assert.ok(!readFileSync(join(other, 'config.json'), 'utf8').includes(s.org.token));
    assert.equal((await berth(other, ['whoami'])).code, 3);
  });
});
