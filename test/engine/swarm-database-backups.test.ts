// Database backups on the swarm engine (decision 0720): a PostgreSQL task pinned to a worker
// node is dumped, restored and drilled through that node's own daemon (SWARM_NODE_DOCKER_HOSTS),
// the same checksum after a restore; a driver that does not reach the node says which one; a
// Redis restore is refused (Swarm would replace the stopped task).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Docker from 'dockerode';
import type { DriverService } from '../../src/engine/engine.ts';
import { execRun } from '../../src/engine/docker/exec-io.ts';
import { createSwarmDriver, type SwarmDriver } from '../../src/engine/swarm/driver.ts';
import { pinLabel } from '../../src/engine/swarm/spec.ts';
import { databaseImage, NO_DOCKER, testDocker } from '../support/docker.ts';
import { startSwarmCluster, swarmUnavailable, type SwarmCluster } from '../support/swarm.ts';

const found = await testDocker();
const onThisPass = !!process.env.DATABASE_URL || process.env.BERTH_SWARM_TESTS === '1';
const why = !found ? NO_DOCKER : !onThisPass ? 'the Swarm suites run with DATABASE_URL (the PostgreSQL pass) or BERTH_SWARM_TESTS=1' : await swarmUnavailable();
const quiet = async () => {};
const signal = () => AbortSignal.timeout(300_000);

function service(type: 'POSTGRESQL' | 'REDIS'): DriverService {
  const id = randomUUID();
  const slug = `sbk-${type.toLowerCase()}-${id.slice(0, 6)}`;
  return {
    id, type: 'DATABASE', name: slug, slug, environmentId: randomUUID(), spec: {}, advancedSettings: {}, gitCommitId: null, imageTag: null,
    projectId: randomUUID(), organizationId: randomUUID(), deploymentId: randomUUID(),
    plan: {
      source: null, env: {}, files: [], cpuMilli: 1000, memoryMiB: 512, replicas: 1, ports: [], readiness: null, liveness: null,
      entrypoint: null, args: [], volumes: [], aliases: [slug], job: null,
      database: { type, version: type === 'REDIS' ? '7' : '15', mode: 'CONTAINER', port: type === 'REDIS' ? 6379 : 5432, login: `berth_${id.slice(0, 8)}`, password: `pw-${id}`, host: slug, publicAccess: false, publicPort: null },
    },
  };
}

describe('swarm engine: database dumps through the node that runs them', { skip: why ?? false, timeout: 900_000 }, () => {
  const docker = found?.docker as Docker;
  let cluster: SwarmCluster;
  let driver: SwarmDriver;
  let dir: string;
  const pg = service('POSTGRESQL');

  const worker = () => cluster.nodes[1]!.docker;
  async function psql(sql: string): Promise<string> {
    const [c] = await worker().listContainers({ filters: { label: [`berth.service_id=${pg.id}`, 'berth.role=replica'] } });
    assert.ok(c, 'the database runs on the worker');
    const db = pg.plan!.database!;
    return (await execRun(worker().getContainer(c.Id), { cmd: ['psql', '-v', 'ON_ERROR_STOP=1', '-tAc', sql], env: { PGHOST: '127.0.0.1', PGUSER: db.login, PGPASSWORD: db.password, PGDATABASE: 'postgres' } },
      null, { signal: signal(), failure: (i) => new Error(i.stderr) })).trim();
  }
  const checksum = () => psql("SELECT count(*) || ' ' || md5(string_agg(id || ':' || name, ',' ORDER BY id)) FROM items");

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'berth-swarm-backups-'));
    const image = await databaseImage(docker, 'POSTGRESQL', '15');
    cluster = await startSwarmCluster(2);
    await cluster.load(docker, [image]);
    driver = createSwarmDriver({
      docker: cluster.manager.docker, nodes: [worker()], registry: null, ingress: null,
      ingressSettings: { domain: 'swarm-backups.test', port: 0 }, allowLocalGit: false, readyTimeoutMs: 300_000,
    });
    // the manager holds another volume already: the database is pinned to the worker
    const [managerNode] = (await cluster.manager.docker.listNodes() as Array<{ ID: string; Version: { Index: number }; Spec: Record<string, unknown> & { Labels?: Record<string, string> }; ManagerStatus?: unknown }>).filter((n) => n.ManagerStatus);
    await cluster.manager.docker.getNode(managerNode!.ID).update({ version: managerNode!.Version.Index, ...managerNode!.Spec, Labels: { ...managerNode!.Spec.Labels, [pinLabel('elsewhere')]: 'true' } });
    await driver.apply(pg, quiet, signal());
    await psql("CREATE TABLE items (id int PRIMARY KEY, name text); INSERT INTO items SELECT i, 'item-' || i FROM generate_series(1, 5000) i");
  }, { timeout: 600_000 });
  after(async () => {
    await driver?.uninstall(pg, quiet, signal(), { purge: true }).catch(() => {});
    await driver?.close?.();
    await cluster?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('dump, drop, restore on the worker\'s daemon: the same rows; a drill there counts them and leaves nothing', async () => {
    const before = await checksum();
    assert.match(before, /^5000 /);
    const file = join(dir, 'pg.dump');
    await pipeline(await driver.databaseBackups!.dump(pg, signal()), createWriteStream(file));
    await psql('DROP TABLE items');
    await driver.databaseBackups!.restore(pg, createReadStream(file), signal());
    assert.equal(await checksum(), before);
    assert.deepEqual(await driver.databaseBackups!.drill(pg, createReadStream(file), signal()), { counts: { items: 5000 } });
    const left = await worker().listContainers({ all: true, filters: { label: [`berth.service_id=${pg.id}`, 'berth.role=backup-drill'] } });
    assert.deepEqual(left, []);
  });

  test('a driver that does not reach the node names it; a Redis restore is refused', async () => {
    const blind = createSwarmDriver({ docker: cluster.manager.docker, nodes: [], registry: null, ingress: null, ingressSettings: { domain: 'x.test', port: 0 }, allowLocalGit: false });
    await assert.rejects(blind.databaseBackups!.dump(pg, signal()), /runs on node \S+, whose Docker daemon berth does not reach: add it to SWARM_NODE_DOCKER_HOSTS/);
    await blind.close?.();
    await assert.rejects(driver.databaseBackups!.restore(service('REDIS'), Readable.from(['x']), signal()), /restoring Redis needs its server stopped/);
  });
});
