// docker-compose → berth services: the shapes real projects use (web + worker + PostgreSQL + Redis
// with build, healthcheck and depends_on), environment as list and map, env_file read beside the
// compose file, commands as strings and lists, resources and replicas, named volumes, database
// images and their versions, and every key not translated reported by name with why.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ComposeError, translateCompose } from './translate.ts';
import type { ApplicationOut, ContainerOut, DatabaseOut, Translation } from './model.ts';
import { durationSeconds, interpolate, sizeMiB, splitWords } from './values.ts';

const files = (map: Record<string, string>) => ({ readFile: (p: string) => map[p] ?? null });
const svc = <T>(t: Translation, name: string) => t.services.find((s) => s.name === name) as T;
const why = (t: Translation, key: string) => t.untranslated.filter((u) => u.key === key).map((u) => u.why);

const SHOP = `
name: shop
x-common: &common
  restart: unless-stopped
  env_file: .env.shared
services:
  web:
    <<: *common
    build:
      context: ./web
      dockerfile: Dockerfile.prod
      target: runtime
      args:
        NODE_VERSION: "22"
    ports:
      - "8080:3000"
    environment:
      - NODE_ENV=production
      - LOG_LEVEL=info
    command: node server.js --port 3000
    healthcheck:
      test: ["CMD", "curl", "-f", "http://localhost:3000/health"]
      interval: 30s
      timeout: 5s
      retries: 3
      start_period: 1m
    depends_on:
      db:
        condition: service_healthy
      cache:
        condition: service_started
    deploy:
      replicas: 2
      resources:
        limits:
          cpus: "0.5"
          memory: 512M
        reservations:
          memory: 256M
    volumes:
      - uploads:/app/uploads
      - ./src:/app/src
  worker:
    <<: *common
    build: ./web
    entrypoint: ["node", "--enable-source-maps"]
    command: ["worker.js"]
    environment:
      QUEUE: default
      CONCURRENCY: 4
    depends_on: [db, cache, web]
  db:
    image: postgres:16-alpine
    environment:
      POSTGRES_USER: shop
      POSTGRES_PASSWORD: example
    volumes:
      - pgdata:/var/lib/postgresql/data
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -U shop"]
    ports: ["5432:5432"]
  cache:
    image: redis:7.2
networks:
  default:
    driver: bridge
volumes:
  pgdata: {}
  uploads:
    driver: local
`;

describe('compose import: web + worker + PostgreSQL + Redis', () => {
  const t = translateCompose(SHOP, { ...files({ '.env.shared': '# shared\nSENTRY_DSN=https://k@sentry.example/1\nexport REGION="eu west"\n' }), repositoryPath: 'deploy' });

  test('the project name and one berth service per compose service', () => {
    assert.equal(t.name, 'shop');
    assert.deepEqual(t.services.map((s) => [s.name, s.kind]), [['web', 'application'], ['worker', 'application'], ['db', 'database'], ['cache', 'database']]);
  });

  test('build: context under the repository, dockerfile, target; args become variables', () => {
    const web = svc<ApplicationOut>(t, 'web');
    assert.equal(web.root_path, '/deploy/web');
    assert.equal(web.dockerfile_path, 'Dockerfile.prod');
    assert.equal(web.docker_target_build_stage, 'runtime');
    assert.deepEqual(web.variables.find((v) => v.key === 'NODE_VERSION'), { key: 'NODE_VERSION', value: '22' });
    assert.match(why(t, 'services.web.build.args')[0]!, /build argument/);
    const worker = svc<ApplicationOut>(t, 'worker');
    assert.equal(worker.root_path, '/deploy/web');
    assert.equal(worker.dockerfile_path, null);
  });

  test('ports: the container port, public; the host port reported', () => {
    assert.deepEqual(svc<ApplicationOut>(t, 'web').ports, [{ internal_port: 3000, publicly_accessible: true, protocol: 'HTTP' }]);
    assert.match(why(t, 'services.web.ports[0] (host port)')[0]!, /service's URL/);
  });

  test('environment as a list and as a map, env_file read beside the compose file (through a YAML merge key)', () => {
    const vars = (name: string) => Object.fromEntries(svc<ApplicationOut>(t, name).variables.map((v) => [v.key, v.value]));
    assert.deepEqual(vars('web'), { SENTRY_DSN: 'https://k@sentry.example/1', REGION: 'eu west', NODE_ENV: 'production', LOG_LEVEL: 'info', NODE_VERSION: '22' });
    assert.deepEqual(vars('worker'), { SENTRY_DSN: 'https://k@sentry.example/1', REGION: 'eu west', QUEUE: 'default', CONCURRENCY: '4' });
  });

  test('command as a string is split into words; an entrypoint list is one word and arguments', () => {
    const web = svc<ApplicationOut>(t, 'web');
    assert.equal(web.entrypoint, null);
    assert.deepEqual(web.arguments, ['node', 'server.js', '--port', '3000']);
    const worker = svc<ApplicationOut>(t, 'worker');
    assert.equal(worker.entrypoint, 'node');
    assert.deepEqual(worker.arguments, ['--enable-source-maps', 'worker.js']);
  });

  test('healthcheck: curl of a local URL becomes an HTTP readiness probe with its timing', () => {
    assert.deepEqual(svc<ApplicationOut>(t, 'web').readiness_probe, {
      type: { http: { path: '/health', port: 3000, scheme: 'HTTP' } }, period_seconds: 30, timeout_seconds: 5, failure_threshold: 3, initial_delay_seconds: 60,
    });
  });

  test('deploy: limits → cpu millicores and memory MiB, replicas → instances; reservations reported', () => {
    const web = svc<ApplicationOut>(t, 'web');
    assert.equal(web.cpu, 500);
    assert.equal(web.memory, 512);
    assert.equal(web.instances, 2);
    assert.match(why(t, 'services.web.deploy.resources.reservations')[0]!, /limits/);
  });

  test('named volumes become storage; bind mounts are reported', () => {
    assert.deepEqual(svc<ApplicationOut>(t, 'web').storage, [{ mount_point: '/app/uploads', size: 10, volume: 'uploads' }]);
    assert.match(why(t, 'services.web.volumes[1]')[0]!, /bind mount of \.\/src/);
    assert.match(why(t, 'volumes.uploads.driver')[0]!, /drivers and options/);
  });

  test('database images become databases with the version of their tag', () => {
    assert.deepEqual(svc<DatabaseOut>(t, 'db'), { kind: 'database', name: 'db', type: 'POSTGRESQL', version: '16', cpu: null, memory: null, storage: 10 });
    assert.deepEqual(svc<DatabaseOut>(t, 'cache'), { kind: 'database', name: 'cache', type: 'REDIS', version: '7.2', cpu: null, memory: null, storage: null });
  });

  test('depends_on a database links its credentials; on another service it is reported', () => {
    assert.deepEqual(svc<ApplicationOut>(t, 'web').databases, [
      { database: 'db', type: 'POSTGRESQL', prefix: 'DB' }, { database: 'cache', type: 'REDIS', prefix: 'CACHE' },
    ]);
    assert.deepEqual(svc<ApplicationOut>(t, 'worker').databases.map((d) => d.database), ['db', 'cache']);
    assert.match(why(t, 'services.worker.depends_on.web')[0]!, /starts an environment's services together/);
    assert.match(why(t, 'services.web.depends_on.db.condition')[0]!, /service_healthy is not waited for/);
  });

  test('every key not translated is listed by name with why', () => {
    const keys = t.untranslated.map((u) => u.key);
    for (const k of ['x-common', 'networks', 'services.web.restart', 'services.worker.restart', 'services.db.environment', 'services.db.healthcheck', 'services.db.ports']) {
      assert.ok(keys.includes(k), `${k} in ${keys.join(', ')}`);
    }
    assert.match(why(t, 'services.db.environment')[0]!, /POSTGRES_USER, POSTGRES_PASSWORD: berth generates the database's credentials/);
    for (const u of t.untranslated) assert.ok(u.why.length > 10, `${u.key} has a reason`);
  });
});

describe('compose import: other shapes', () => {
  test('an image becomes a container: registry, name and tag', () => {
    const t = translateCompose(`services:
  proxy: { image: "ghcr.io/acme/proxy:1.4", expose: ["9000"] }
  hub: { image: nginx }
  lib: { image: "docker.io/library/caddy:2@sha256:abc" }
`, files({}));
    const c = (n: string) => { const s = svc<ContainerOut>(t, n); return [s.registry, s.image_name, s.tag]; };
    assert.deepEqual(c('proxy'), ['ghcr.io', 'acme/proxy', '1.4']);
    assert.deepEqual(c('hub'), ['docker.io', 'nginx', 'latest']);
    assert.deepEqual(c('lib'), ['docker.io', 'caddy', '2']);
    assert.deepEqual(svc<ContainerOut>(t, 'proxy').ports, [{ internal_port: 9000, publicly_accessible: false, protocol: 'TCP' }]);
  });

  test('mysql, mariadb, mongo; latest and unsupported versions are pinned and said so', () => {
    const t = translateCompose(`services:
  a: { image: "mysql:8.0" }
  b: { image: "mariadb:11" }
  c: { image: mongo }
  d: { image: "postgres:18" }
  e: { image: "bitnami/postgresql:16" }
`, files({}));
    assert.deepEqual(t.services.map((s) => s.kind === 'database' ? [s.name, s.type, s.version] : [s.name, s.kind]), [
      ['a', 'MYSQL', '8.0'], ['b', 'MYSQL', '8'], ['c', 'MONGODB', '8'], ['d', 'POSTGRESQL', '17'], ['e', 'container'],
    ]);
    assert.match(why(t, 'services.b.image')[0]!, /MariaDB 11 runs as berth's MYSQL database/);
    assert.match(why(t, 'services.d.image')[0]!, /version 18 is not one berth runs .*pinned to 17/);
  });

  test('environment values: .env interpolation, defaults, and values left to the shell', () => {
    const t = translateCompose(`services:
  app:
    image: app
    environment:
      - TAG=\${VERSION:-dev}
      - URL=https://\${HOST}/x
      - FROM_SHELL
      - PRICE=$$5
      - bad-key=1
      - BERTH_X=1
`, files({ '.env': 'HOST=example.com\n' }));
    assert.deepEqual(svc<ContainerOut>(t, 'app').variables, [
      { key: 'TAG', value: 'dev' }, { key: 'URL', value: 'https://example.com/x' }, { key: 'PRICE', value: '$5' },
    ]);
    assert.match(why(t, 'services.app.environment[2]')[0]!, /env:FROM_SHELL/);
    assert.match(why(t, 'services.app.environment.bad-key')[0]!, /letters, digits and underscores/);
    assert.match(why(t, 'services.app.environment.BERTH_X')[0]!, /reserved/);
  });

  test('healthchecks: wget → HTTP on the port it names, nc → TCP, anything else → exec; disabled → none', () => {
    const t = translateCompose(`services:
  a: { image: a, healthcheck: { test: "wget -qO- http://127.0.0.1:8000/ready || exit 1" } }
  b: { image: b, healthcheck: { test: ["CMD-SHELL", "nc -z localhost 6000"] } }
  c: { image: c, healthcheck: { test: ["CMD", "/bin/check", "--fast"], start_interval: 1s } }
  d: { image: d, healthcheck: { disable: true } }
`, files({}));
    assert.deepEqual(svc<ContainerOut>(t, 'a').readiness_probe!.type, { http: { path: '/ready', port: 8000, scheme: 'HTTP' } });
    assert.deepEqual(svc<ContainerOut>(t, 'a').ports, [{ internal_port: 8000, publicly_accessible: false, protocol: 'HTTP' }]);
    assert.deepEqual(svc<ContainerOut>(t, 'b').readiness_probe!.type, { tcp: { port: 6000 } });
    assert.deepEqual(svc<ContainerOut>(t, 'c').readiness_probe!.type, { exec: { command: ['/bin/check', '--fast'] } });
    assert.equal(why(t, 'services.c.healthcheck.start_interval').length, 1);
    assert.equal(svc<ContainerOut>(t, 'd').readiness_probe, null);
  });

  test('unknown keys at every level are reported, never dropped', () => {
    const t = translateCompose(`version: "3.9"
services:
  app:
    image: app
    container_name: my-app
    tmpfs: /run
    deploy: { placement: { constraints: [x] }, resources: { limits: { pids: 10 } } }
secrets:
  s: { file: ./s.txt }
x-anything: 1
`, files({}));
    assert.deepEqual(t.untranslated.map((u) => u.key).sort(), [
      'secrets', 'services.app.container_name', 'services.app.deploy.placement', 'services.app.deploy.resources.limits.pids', 'services.app.image', 'services.app.tmpfs', 'version', 'x-anything',
    ]);
  });

  test('a missing required env_file, a service with neither image nor build, a file without services: errors', () => {
    assert.throws(() => translateCompose('services:\n  a: { image: a, env_file: [missing.env] }\n', files({})), (e: Error) => e instanceof ComposeError && /missing\.env does not exist/.test(e.message));
    assert.throws(() => translateCompose('services:\n  a: { ports: ["80"] }\n', files({})), /neither image nor build/);
    assert.throws(() => translateCompose('foo: 1\n', files({})), /not a compose file/);
    assert.throws(() => translateCompose('services: [\n', files({})), ComposeError);
  });

  test('a build context that leaves the repository is reported and the service left out', () => {
    const t = translateCompose('services:\n  a: { build: ../elsewhere }\n', files({}));
    assert.deepEqual(t.services, []);
    assert.match(why(t, 'services.a.build.context')[0]!, /leaves the git repository/);
  });
});

describe('compose value grammars', () => {
  test('durations, sizes, words, interpolation', () => {
    assert.equal(durationSeconds('1m30s'), 90);
    assert.equal(durationSeconds('500ms'), 1);
    assert.equal(durationSeconds('soon'), null);
    assert.equal(sizeMiB('1.5g'), 1536);
    assert.equal(sizeMiB('512M'), 512);
    assert.equal(sizeMiB('64k'), 1);
    assert.equal(sizeMiB('lots'), null);
    assert.deepEqual(splitWords(`sh -c 'echo "hi there"' a\\ b "x\\"y"`), ['sh', '-c', 'echo "hi there"', 'a b', 'x"y']);
    const env = new Map([['A', 'a'], ['E', '']]);
    assert.deepEqual(interpolate('${A}-${E:-d}-${E-d}-${Z:+alt}-${A:+alt}-$A-${MISSING}', env), { value: 'a-d---alt-a-', missing: ['MISSING'] });
  });
});
