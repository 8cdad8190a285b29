// The berth.yaml that `berth import compose` writes is a valid document of berth's own schema
// (src/modules/manifests: the schema apply checks and editors load): every translated shape of a
// web + worker + PostgreSQL + Redis compose file, and a container from an image.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { emitManifest } from '../../src/lib/compose/emit.ts';
import { translateCompose } from '../../src/lib/compose/translate.ts';
import { Manifest } from '../../src/modules/manifests/manifest.schemas.ts';

const COMPOSE = `services:
  web:
    build: { context: ., dockerfile: Dockerfile, args: { V: "1" } }
    ports: ["8000:8080"]
    environment: [MODE=web]
    command: ["serve", "--port", "8080"]
    healthcheck: { test: "curl -f http://localhost:8080/health", interval: 10s, timeout: 2s, retries: 5, start_period: 5s }
    depends_on: { db: { condition: service_healthy }, cache: { condition: service_started } }
    deploy: { replicas: 2, resources: { limits: { cpus: "0.25", memory: 256M } } }
    volumes: [uploads:/srv/uploads]
  worker:
    build: .
    entrypoint: ./worker
    depends_on: [db, cache]
  proxy:
    image: caddy:2
    expose: ["80"]
  db: { image: "postgres:15", volumes: [pgdata:/var/lib/postgresql/data], deploy: { resources: { limits: { memory: 1g } } } }
  cache: { image: "redis:7" }
volumes: { pgdata: {}, uploads: {} }
`;

test('the imported berth.yaml validates against the berth.yaml JSON Schema', () => {
  const t = translateCompose(COMPOSE, { readFile: () => null });
  const text = emitManifest(t, { project: 'shop', environment: 'staging', git: { url: 'https://git.example.com/shop.git', branch: 'main' }, schemaUrl: 'http://x/manifests/schema.json', source: 'compose.yml' });
  const ajv = new Ajv({ strict: false, allErrors: true });
  const compiled = ajv.compile(Manifest);
  const validate = (d: unknown): boolean => compiled(d);
  const doc = parse(text) as any;
  assert.ok(validate(doc), JSON.stringify(compiled.errors, null, 2));
  assert.deepEqual(Object.keys(doc.environments.staging.applications), ['web', 'worker']);
  assert.equal(doc.environments.staging.databases.db.memory, 1024);
  // a database's credentials on the services that depend on it: references the schema accepts, resolved at apply
  assert.deepEqual(doc.environments.staging.applications.worker.variables, {
    DB_HOST: { from_database: { name: 'db', property: 'HOST' } }, DB_PORT: { from_database: { name: 'db', property: 'PORT' } },
    DB_USER: { from_database: { name: 'db', property: 'USER' } }, DB_PASSWORD: { from_database: { name: 'db', property: 'PASSWORD' } },
    DB_URL: { from_database: { name: 'db', property: 'URL' } },
    CACHE_HOST: { from_database: { name: 'cache', property: 'HOST' } }, CACHE_PORT: { from_database: { name: 'cache', property: 'PORT' } },
    CACHE_USER: { from_database: { name: 'cache', property: 'USER' } }, CACHE_PASSWORD: { from_database: { name: 'cache', property: 'PASSWORD' } },
    CACHE_URL: { from_database: { name: 'cache', property: 'URL' } },
  });
  // and a document the schema refuses is refused here too: the check can fail
  doc.environments.staging.applications.web.cpu = 'lots';
  assert.equal(validate(doc), false);
  doc.environments.staging.applications.web.cpu = 250;
  doc.environments.staging.applications.worker.variables.DB_URL.from_database.property = 'DSN';
  assert.equal(validate(doc), false, 'a property berth does not have is refused');
});
