// `berth import compose`: the real binary translates a docker-compose file (web + worker +
// PostgreSQL + Redis, an env_file beside it) in a git repository into berth.yaml: the schema
// comment, the repository's origin and branch for the built services, database credentials wired
// on the services that depend on them, and every untranslated key printed and kept in the file's
// head comment. It refuses to overwrite a file, and reports a broken compose file with exit 2.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { berth } from './support.ts';

const COMPOSE = `services:
  web:
    build: { context: ., dockerfile: Dockerfile }
    ports: ["8000:8080"]
    env_file: web.env
    environment: [MODE=web]
    healthcheck: { test: ["CMD", "wget", "-q", "-O-", "http://localhost:8080/health"], interval: 10s }
    depends_on: { db: { condition: service_healthy }, cache: { condition: service_started } }
    restart: always
  worker:
    build: .
    command: ./worker --queue default
    environment: { MODE: worker }
    depends_on: [db, cache]
  db:
    image: postgres:15
    environment: { POSTGRES_PASSWORD: s3cr3t-compose }
    volumes: [pgdata:/var/lib/postgresql/data]
  cache:
    image: redis:7-alpine
volumes:
  pgdata:
`;

describe('berth import compose', () => {
  let repo: string;
  let appDir: string;

  before(() => {
    repo = mkdtempSync(join(tmpdir(), 'compose-cli-'));
    appDir = join(repo, 'apps', 'shop');
    mkdirSync(appDir, { recursive: true });
    writeFileSync(join(appDir, 'docker-compose.yml'), COMPOSE);
    writeFileSync(join(appDir, 'web.env'), 'GREETING=hello\n');
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore' });
    git('init', '-q', '-b', 'trunk');
    git('remote', 'add', 'origin', 'https://git.example.com/acme/shop.git');
  });

  test('writes berth.yaml: schema comment, git source, databases, credentials wired, untranslated keys listed', async () => {
    const r = await berth(mkdtempSync(join(tmpdir(), 'berth-cli-')), ['import', 'compose', join(appDir, 'docker-compose.yml'), '-o', join(appDir, 'berth.yaml'), '-p', 'shop'],
      { env: { BERTH_URL: 'https://berth.example.com', BERTH_TOKEN: 'unused' } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /web \(application\), worker \(application\), db \(database\), cache \(database\)/);
    assert.match(r.stdout, /services\.web\.restart: berth always restarts/);
    assert.match(r.stdout, /services\.db\.environment: POSTGRES_PASSWORD: berth generates the database's credentials/);

    const text = readFileSync(join(appDir, 'berth.yaml'), 'utf8');
    assert.equal(text.split('\n')[0], '# yaml-language-server: $schema=https://berth.example.com/manifests/schema.json');
    assert.match(text, /#\s+services\.web\.restart: berth always restarts/);
    const doc = parse(text);
    assert.equal(doc.version, 1);
    assert.equal(doc.project.name, 'shop');
    const env = doc.environments.development;
    assert.equal(env.mode, 'DEVELOPMENT');
    const web = env.applications.web;
    assert.deepEqual(web.git_repository, { url: 'https://git.example.com/acme/shop.git', branch: 'trunk', root_path: '/apps/shop' });
    assert.equal(web.dockerfile_path, 'Dockerfile');
    assert.deepEqual(web.ports, [{ internal_port: 8080, publicly_accessible: true, protocol: 'HTTP' }]);
    assert.deepEqual(web.healthchecks.readiness_probe, { type: { http: { path: '/health', port: 8080, scheme: 'HTTP' } }, period_seconds: 10 });
    assert.equal(web.variables.GREETING, 'hello');
    assert.equal(web.variables.MODE, 'web');
    const ref = (name: string, property: string) => ({ from_database: { name, property } });
    for (const p of ['HOST', 'PORT', 'USER', 'PASSWORD', 'URL']) {
      assert.deepEqual(web.variables[`DB_${p}`], ref('db', p));
      assert.deepEqual(web.variables[`CACHE_${p}`], ref('cache', p));
    }
    assert.match(r.stdout, /services\.web\.depends_on\.db: DB_HOST, DB_PORT, DB_USER, DB_PASSWORD and DB_URL are set on web from db's credentials/);
    const worker = env.applications.worker;
    assert.deepEqual(worker.arguments, ['./worker', '--queue', 'default']);
    assert.deepEqual(worker.variables.DB_PASSWORD, ref('db', 'PASSWORD'));
    assert.deepEqual(env.databases, {
      db: { type: 'POSTGRESQL', version: '15', mode: 'CONTAINER', storage: 10 },
      cache: { type: 'REDIS', version: '7', mode: 'CONTAINER' },
    });
    assert.ok(!text.includes('s3cr3t-compose'), 'the compose file\'s database password is not carried over');
  });

  test('an existing output file is kept unless --force; -o - prints the file and reports on stderr', async () => {
    const out = join(appDir, 'kept.yaml');
    writeFileSync(out, 'mine\n');
    const refused = await berth(mkdtempSync(join(tmpdir(), 'berth-cli-')), ['import', 'compose', join(appDir, 'docker-compose.yml'), '-o', out]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /kept\.yaml exists: pass --force/);
    assert.equal(readFileSync(out, 'utf8'), 'mine\n');
    const printed = await berth(mkdtempSync(join(tmpdir(), 'berth-cli-')), ['import', 'compose', join(appDir, 'docker-compose.yml'), '-o', '-']);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /^# yaml-language-server: \$schema=http:\/\/localhost:8080\/manifests\/schema\.json/);
    assert.deepEqual(Object.keys(parse(printed.stdout).environments.development.databases), ['db', 'cache']);
    assert.match(printed.stderr, /not translated \(\d+\):/);
  });

  test('a compose file without services, or with a missing env_file: exit 2 naming the problem', async () => {
    const bad = join(appDir, 'bad.yml');
    writeFileSync(bad, 'services:\n  a: { image: a, env_file: nope.env }\n');
    const r = await berth(mkdtempSync(join(tmpdir(), 'berth-cli-')), ['import', 'compose', bad, '-o', '-']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.yml: services\.a\.env_file: nope\.env does not exist/);
    writeFileSync(bad, 'hello: world\n');
    const r2 = await berth(mkdtempSync(join(tmpdir(), 'berth-cli-')), ['import', 'compose', bad, '-o', '-']);
    assert.equal(r2.code, 2);
    assert.match(r2.stderr, /not a compose file/);
  });
});
