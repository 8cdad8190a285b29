// docker-compose import on the real Docker engine (issue 41, Tests: "Compose files of the shapes
// real projects use … imported, applied and deployed on the Docker engine; the web answers"). A
// project's repository on a loopback git server holds a Dockerfile and a docker-compose.yml of the
// usual shape: `web` built from the Dockerfile (build args, a public port, a healthcheck, resource
// limits), `worker` built from the same repository with another command, `db: postgres:16` with
// POSTGRES_PASSWORD/POSTGRES_DB and a named volume, `cache: redis:7`, depends_on in list and map
// form (condition: service_healthy), plus keys berth does not translate (restart, networks). In a
// clone of that repository (so `origin` is the git server's URL) the real CLI binary runs
// `berth import compose`; the untranslated keys are listed by name; the berth.yaml it wrote is
// applied with `deploy: true` to a berth on the Docker engine; every deployment ends DEPLOYED;
// the web answers its body (and the build arg baked at build time) at its URL; the worker's
// container runs and reaches the database and the cache at the DB_/CACHE_ HOST and PORT the import
// wired (`from_database` references, resolved at apply); the web's environment holds the
// databases' generated credentials, and its DB_URL and CACHE_URL log in (psql, redis-cli on the
// environment's network); applying the same file again changes nothing. The database images are
// the offline test images (database-image.ts; Debian's PostgreSQL 15 tagged postgres:16 for the
// compose file's tag when the daemon has no postgres:16: no registry is reachable).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { networkName } from '../../src/engine/docker/naming.ts';
import { busyboxImage, databaseImage, NO_DOCKER, removeImage, startGitServer, TEST_LABEL, testDocker, type GitServer } from '../support/docker.ts';
import { hasImage } from '../support/debian-root.ts';
import { hostOf, removeEnvironment, startEngineBerth, viaIngress, type EngineBerth } from '../support/engine-berth.ts';
import { eventually } from '../support/harness.ts';

const run = promisify(execFile);
const found = await testDocker();
const BERTH_BIN = new URL('../../bin/berth.mjs', import.meta.url).pathname;

/** the project's Dockerfile: a build arg baked into the image, the page written from a variable at start */
const dockerfile = (base: string) => `FROM ${base}
ARG APP_VERSION=unset
RUN mkdir -p /www && echo "built $APP_VERSION" > /www/version
CMD ["sh", "-c", "echo \\"$GREETING\\" > /www/index.html && exec httpd -f -p 8080 -h /www"]
`;

// the worker waits for the database and the cache at the addresses the import gave it ($$: a
// dollar for the container's shell, not compose interpolation), says so, then idles
const WORKER = 'reach() { timeout 3 nc "$1" "$2" </dev/null >/dev/null 2>&1; }; '
  + 'until reach "$DB_HOST" "$DB_PORT" && reach "$CACHE_HOST" "$CACHE_PORT"; do sleep 1; done; '
  + 'echo "worker reached $DB_HOST:$DB_PORT and $CACHE_HOST:$CACHE_PORT"; trap "exit 0" TERM; while true; do sleep 1; done';

const COMPOSE = `name: shop
services:
  web:
    build:
      context: .
      dockerfile: Dockerfile
      args:
        APP_VERSION: "1.0"
    ports:
      - "8080:8080"
    environment:
      GREETING: hello from compose
    healthcheck:
      test: ["CMD", "wget", "-q", "-O", "/dev/null", "http://localhost:8080/"]
      interval: 5s
      timeout: 3s
      retries: 5
      start_period: 2s
    depends_on:
      - db
      - cache
    deploy:
      resources:
        limits:
          cpus: "0.25"
          memory: 64M
    restart: always
    networks: [backend]
  worker:
    build: .
    command: ["sh", "-c", ${JSON.stringify(WORKER.replaceAll('$', () => '$$'))}]
    depends_on:
      db:
        condition: service_healthy
      cache:
        condition: service_started
    deploy:
      resources:
        limits:
          cpus: "0.1"
          memory: 32M
    restart: always
    networks: [backend]
  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: example
      POSTGRES_DB: shop
    volumes:
      - pgdata:/var/lib/postgresql/data
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -U postgres"]
      interval: 5s
    restart: always
    networks: [backend]
  cache:
    image: redis:7
    restart: always
    networks: [backend]
volumes:
  pgdata:
networks:
  backend:
`;

interface Credentials { host: string; port: number; login: string; password: string }
interface Imported { output: string; services: Array<{ name: string; kind: string }>; untranslated: Array<{ key: string; why: string }> }

describe('docker engine: a docker-compose project imported, applied and deployed', { skip: found ? false : NO_DOCKER, timeout: 900_000 }, () => {
  const docker = found?.docker!;
  let berth: EngineBerth;
  let git: GitServer;
  let repoUrl: string;
  let checkout: string;
  let envId: string | undefined;
  let taggedPostgres16 = false;
  let imported: Imported;
  let manifest: string;

  async function api(method: string, url: string, body?: unknown) {
    const r = await berth.api(method, url, body);
    assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }
  /** a one-off client container on the environment's network: its exit code and trimmed output (killed after 30 s) */
  async function client(image: string, entrypoint: string[], cmd: string[]): Promise<{ code: number; out: string }> {
    const c = await docker.createContainer({ Image: image, Entrypoint: entrypoint, Cmd: cmd, HostConfig: { NetworkMode: networkName(envId!) }, Labels: { [TEST_LABEL]: 'compose-import-client' } });
    try {
      const stream = await c.attach({ stream: true, stdout: true, stderr: true });
      let text = '';
      const sink = new PassThrough();
      sink.on('data', (d: Buffer) => { text += d.toString('utf8'); });
      docker.modem.demuxStream(stream, sink, sink);
      await c.start();
      const deadline = setTimeout(() => { c.kill().catch(() => {}); }, 30_000);
      const { StatusCode } = await c.wait() as { StatusCode: number };
      clearTimeout(deadline);
      await new Promise((r) => setTimeout(r, 100)); // the last frames
      return { code: StatusCode, out: text.trim() };
    } finally {
      await c.remove({ force: true, v: true }).catch(() => {});
    }
  }
  const replicas = (serviceId: string) => docker.listContainers({ filters: { label: [`berth.service_id=${serviceId}`, 'berth.role=replica'] } });

  before(async () => {
    const started = Date.now();
    const [base, postgres] = await Promise.all([
      busyboxImage(docker), databaseImage(docker, 'POSTGRESQL', '15'), databaseImage(docker, 'REDIS', '7'),
    ]);
    // the compose file says postgres:16: berth runs `postgres:<version>`; the offline test image is Debian's 15
    if (!(await hasImage(docker, 'postgres:16'))) {
      await docker.getImage(postgres).tag({ repo: 'postgres', tag: '16' });
      taggedPostgres16 = true;
    }
    git = await startGitServer();
    repoUrl = (await git.createRepo('shop', { Dockerfile: dockerfile(base), 'docker-compose.yml': COMPOSE })).url;
    checkout = await mkdtemp(join(tmpdir(), 'berth-compose-import-'));
    await run('git', ['clone', '-q', repoUrl, join(checkout, 'shop')], { env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    berth = await startEngineBerth(found!.host);
    process.stderr.write(`compose-import: images, git and berth ready in ${Date.now() - started} ms\n`);
  }, { timeout: 600_000 });
  after(async () => {
    // a client a failed test left running would keep the environment's network
    for (const c of await docker.listContainers({ all: true, filters: { label: [`${TEST_LABEL}=compose-import-client`] } })) {
      await docker.getContainer(c.Id).remove({ force: true, v: true }).catch(() => {});
    }
    await removeEnvironment(berth, docker, envId);
    await berth?.close();
    await git?.close();
    if (checkout) await rm(checkout, { recursive: true, force: true });
    if (taggedPostgres16) await removeImage(docker, 'postgres:16').catch(() => {});
  });

  test('berth import compose writes berth.yaml from the checkout and lists every key it did not translate, by name', { timeout: 60_000 }, async () => {
    const dir = join(checkout, 'shop');
    const { stdout } = await run(process.execPath, [BERTH_BIN, 'import', 'compose', 'docker-compose.yml', '--json'], {
      cwd: dir, env: { ...process.env, HOME: checkout, BERTH_URL: berth.process.url, NO_COLOR: '1' },
    });
    imported = JSON.parse(stdout);
    manifest = await readFile(join(dir, 'berth.yaml'), 'utf8');
    assert.equal(imported.output, 'berth.yaml');
    assert.deepEqual(imported.services, [
      { name: 'web', kind: 'application' }, { name: 'worker', kind: 'application' },
      { name: 'db', kind: 'database' }, { name: 'cache', kind: 'database' },
    ]);
    const keys = new Set(imported.untranslated.map((u) => u.key));
    for (const key of [
      'networks',
      'services.web.restart', 'services.web.networks', 'services.web.ports[0] (host port)',
      'services.worker.restart', 'services.worker.networks', 'services.worker.depends_on.db.condition',
      'services.db.restart', 'services.db.networks', 'services.db.environment', 'services.db.healthcheck',
      'services.cache.restart', 'services.cache.networks',
    ]) assert.ok(keys.has(key), `${key} is listed as not translated: ${[...keys].join(', ')}`);
    for (const u of imported.untranslated) assert.ok(u.why.length > 10, `${u.key} says why`);
    assert.ok(!imported.untranslated.some((u) => u.key.startsWith('services.worker.command')), '$$ in the command is a dollar, not a missing variable');
    // the same list heads the file, so it is reviewed with it
    const head = manifest.split('\n').filter((l) => l.startsWith('#')).join('\n');
    for (const u of imported.untranslated) assert.ok(head.includes(`${u.key}: ${u.why}`), `${u.key} in the file's head comment`);

    const doc = parse(manifest);
    assert.equal(doc.project.name, 'shop', 'the compose name');
    const env = doc.environments.development;
    for (const name of ['web', 'worker']) {
      assert.deepEqual(env.applications[name].git_repository, { url: repoUrl, branch: 'main', root_path: '/' }, `${name} builds the checkout's origin`);
    }
    const web = env.applications.web;
    assert.deepEqual({ cpu: web.cpu, memory: web.memory, ports: web.ports }, { cpu: 250, memory: 64, ports: [{ internal_port: 8080, publicly_accessible: true, protocol: 'HTTP' }] });
    assert.deepEqual(web.healthchecks.readiness_probe, {
      type: { http: { path: '/', port: 8080, scheme: 'HTTP' } }, period_seconds: 5, timeout_seconds: 3, initial_delay_seconds: 2, failure_threshold: 5,
    });
    assert.deepEqual({ cpu: env.applications.worker.cpu, memory: env.applications.worker.memory }, { cpu: 100, memory: 32 });
    assert.equal(env.applications.worker.arguments[0], 'sh');
    assert.equal(env.applications.worker.arguments[2], WORKER);
    // every service depending on a database gets its generated credentials, by reference (resolved at apply)
    for (const name of ['web', 'worker']) {
      const variables = env.applications[name].variables;
      for (const [prefix, database] of [['DB', 'db'], ['CACHE', 'cache']]) {
        for (const property of ['HOST', 'PORT', 'USER', 'PASSWORD', 'URL']) {
          assert.deepEqual(variables[`${prefix}_${property}`], { from_database: { name: database, property } }, `${name}: ${prefix}_${property}`);
        }
      }
    }
    assert.deepEqual(env.applications.web.variables.GREETING, 'hello from compose');
    assert.deepEqual(env.applications.web.variables.APP_VERSION, '1.0', 'the build arg, as a variable');
    assert.deepEqual(env.databases.db, { type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', storage: 10 });
    assert.deepEqual(env.databases.cache, { type: 'REDIS', version: '7', mode: 'CONTAINER' });
  });

  test('the file applied with deploy: every service deploys, the web answers, the worker reaches the database and the cache', { timeout: 420_000 }, async () => {
    assert.ok(manifest, 'the berth.yaml of the import');
    const started = Date.now();
    const org = (await api('GET', '/organization')).results[0].id;
    const applied = await api('POST', `/organization/${org}/apply`, { document: manifest, file: 'berth.yaml', deploy: true, secret_values: {} });
    assert.equal(applied.dry_run, false);
    assert.deepEqual(applied.deployments.map((d: { name: string }) => d.name).sort(), ['cache', 'db', 'web', 'worker']);
    envId = (await api('GET', `/project/${applied.project.id}/environment`)).results.find((e: { name: string }) => e.name === 'development').id;
    const byName = new Map<string, { service_id: string; deployment_id: string }>(applied.deployments.map((d: { name: string; service_id: string; deployment_id: string }) => [d.name, d]));
    const finals = await Promise.all([...byName].map(async ([name, d]) => [name, await berth.settle(d.deployment_id, 300_000)] as const));
    process.stderr.write(`compose-import: apply + 4 deployments settled in ${Date.now() - started} ms\n`);
    for (const [name, final] of finals) assert.equal(final.status, 'DEPLOYED', `${name}: ${final.status} ${final.message}`);
    const id = (name: string) => byName.get(name)!.service_id;

    // the web answers at its public URL, with the build arg baked in at build time
    const links = await api('GET', `/application/${id('web')}/link`);
    const link = (links.results ?? links).find((l: { is_default: boolean }) => l.is_default);
    const host = hostOf(link.url);
    assert.deepEqual(await viaIngress(berth.ingressPort, host), { status: 200, body: 'hello from compose\n' });
    assert.deepEqual(await viaIngress(berth.ingressPort, host, '/version'), { status: 200, body: 'built 1.0\n' });

    // the web's container: its limits, and the database's and the cache's credentials in its environment
    const [webReplica, ...moreWeb] = await replicas(id('web'));
    assert.ok(webReplica && moreWeb.length === 0, 'one web replica');
    const webInfo = await docker.getContainer(webReplica.Id).inspect();
    assert.equal(webInfo.HostConfig.NanoCpus, 250_000_000, 'cpus: "0.25"');
    assert.equal(webInfo.HostConfig.Memory, 64 * 1024 * 1024, 'memory: 64M');
    const webEnv = Object.fromEntries(webInfo.Config.Env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
    assert.deepEqual({ GREETING: webEnv.GREETING, APP_VERSION: webEnv.APP_VERSION }, { GREETING: 'hello from compose', APP_VERSION: '1.0' });
    const credentials = {
      db: await api('GET', `/database/${id('db')}/masterCredentials`) as Credentials,
      cache: await api('GET', `/database/${id('cache')}/masterCredentials`) as Credentials,
    };
    const expected = (prefix: string, c: Credentials, url: string) => ({
      [`${prefix}_HOST`]: c.host, [`${prefix}_PORT`]: String(c.port), [`${prefix}_USER`]: c.login, [`${prefix}_PASSWORD`]: c.password, [`${prefix}_URL`]: url,
    });
    const pick = (prefix: string) => Object.fromEntries(Object.entries(webEnv).filter(([k]) => k.startsWith(`${prefix}_`)));
    const { db, cache } = credentials;
    assert.deepEqual(pick('DB'), expected('DB', db, `postgresql://${encodeURIComponent(db.login)}:${encodeURIComponent(db.password)}@${db.host}:${db.port}/postgres`));
    assert.deepEqual(pick('CACHE'), expected('CACHE', cache, `redis://${encodeURIComponent(cache.login)}:${encodeURIComponent(cache.password)}@${cache.host}:${cache.port}`));

    // the worker runs, and reached the database and the cache at DB_HOST/DB_PORT and CACHE_HOST/CACHE_PORT
    const [workerReplica] = await replicas(id('worker'));
    assert.ok(workerReplica, 'the worker runs');
    assert.equal((await docker.getContainer(workerReplica.Id).inspect()).State.Running, true);
    const reached = `worker reached ${db.host}:${db.port} and ${cache.host}:${cache.port}`;
    await eventually(async () => (await api('GET', `/application/${id('worker')}/log?tail=1000`)).results
      .some((l: { kind: string; message: string }) => l.kind === 'RUNTIME' && l.message === reached), 60_000, 500);
    assert.equal((await api('GET', `/application/${id('worker')}/status`)).state, 'RUNNING');

    // the database and the cache run the images of the compose file's tags, with their data on volumes
    for (const [name, image] of [['db', 'postgres:16'], ['cache', 'redis:7']] as const) {
      const [replica, ...more] = await replicas(id(name));
      assert.ok(replica && more.length === 0, `one ${name} replica`);
      assert.equal(replica.Image, image);
      assert.ok(replica.Mounts.some((m) => m.Type === 'volume'), `${name} keeps its data on a volume`);
      await eventually(async () => (await api('GET', `/database/${id(name)}/status`)).state === 'RUNNING', 30_000, 500);
    }
    // what the web's code would do with its DB_URL and CACHE_URL: log in, on the environment's network
    const login = await client('postgres:16', ['psql'], [webEnv.DB_URL!, '-tAc', 'select current_user']);
    assert.deepEqual(login, { code: 0, out: db.login }, 'psql "$DB_URL"');
    const ping = await client('redis:7', ['redis-cli'], ['--no-auth-warning', '-u', webEnv.CACHE_URL!, 'ping']);
    assert.deepEqual(ping, { code: 0, out: 'PONG' }, 'redis-cli -u "$CACHE_URL"');
  });

  test('the same file applied again changes nothing and deploys nothing', { timeout: 60_000 }, async () => {
    assert.ok(envId, 'the environment of the apply');
    const org = (await api('GET', '/organization')).results[0].id;
    const again = await api('POST', `/organization/${org}/apply`, { document: manifest, file: 'berth.yaml', deploy: true, secret_values: {} });
    assert.deepEqual({ create: again.summary.create, update: again.summary.update, delete: again.summary.delete }, { create: 0, update: 0, delete: 0 },
      JSON.stringify(again.changes.filter((c: { action: string }) => c.action !== 'unchanged')));
    assert.deepEqual(again.deployments, []);
  });
});
