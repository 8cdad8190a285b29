// Native dumps, restores and restore drills of databases on the docker engine (issue 39, decision
// 0720), on real containers built from Debian's packages (no registry): PostgreSQL, MySQL
// (MariaDB) and Redis get data, are dumped to a file, lose it, are restored from the file and
// hold the same data (same checksum); a drill counts what a dump holds in a throwaway container
// that is gone afterwards; failures are clear (a wrong password, garbage, a removed container).
// MongoDB is skipped: Debian bookworm has no MongoDB package, so no image can be built offline.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Docker from 'dockerode';
import type { DriverService } from '../../src/engine/engine.ts';
import type { DatabasePlan } from '../../src/engine/plan.ts';
import { createDockerDriver } from '../../src/engine/docker/driver.ts';
import { execRun } from '../../src/engine/docker/exec-io.ts';
import { listReplicas } from '../../src/engine/docker/replicas.ts';
import { databaseImage, NO_DOCKER, testDocker } from '../support/docker.ts';

const found = await testDocker();
const docker = found?.docker as Docker;
const driver = found ? createDockerDriver({ docker, ingress: null, ingressSettings: { domain: 'backups.test', port: 0 }, allowLocalGit: false, readyTimeoutMs: 300_000 }) : null;
const backups = driver?.databaseBackups;
const quiet = async () => {};
const signal = () => AbortSignal.timeout(300_000);
let dir: string;

function databaseService(type: DatabasePlan['type'], version: string, port: number): DriverService {
  const id = randomUUID();
  const slug = `bk-${type.toLowerCase()}-${id.slice(0, 6)}`;
  const login = type === 'REDIS' ? 'default' : `berth_${id.slice(0, 8)}`;
  return {
    id, type: 'DATABASE', name: slug, slug, environmentId: randomUUID(), spec: {}, advancedSettings: {}, gitCommitId: null, imageTag: null,
    projectId: randomUUID(), organizationId: randomUUID(), deploymentId: randomUUID(),
    plan: {
      source: null, env: {}, files: [], cpuMilli: 1000, memoryMiB: 512, replicas: 1, ports: [], readiness: null, liveness: null,
      entrypoint: null, args: [], volumes: [], aliases: [slug], job: null,
      database: { type, version, mode: 'CONTAINER', port, login, password: `pw-${randomUUID()}`, host: slug, publicAccess: false, publicPort: null },
    },
  };
}

/** runs a client inside the database's container (credentials in its environment) and returns its output */
async function client(service: DriverService, cmd: string[], input: string | null = null): Promise<string> {
  const [replica] = await listReplicas(docker, service.id, false);
  const db = service.plan!.database!;
  const env: Record<string, string> = db.type === 'POSTGRESQL' ? { PGHOST: '127.0.0.1', PGUSER: db.login, PGPASSWORD: db.password, PGDATABASE: 'postgres' }
    : db.type === 'MYSQL' ? { MYSQL_PWD: db.password } : { REDISCLI_AUTH: db.password };
  return (await execRun(docker.getContainer(replica!.Id), { cmd, env }, input === null ? null : Readable.from([input]), {
    signal: signal(), failure: (i) => new Error(`${cmd[0]} exited with ${i.exitCode}: ${i.stderr}`),
  })).trim();
}

async function dumpToFile(service: DriverService, name: string): Promise<{ file: string; ms: number; bytes: number }> {
  const file = join(dir, name);
  const started = Date.now();
  await pipeline(await backups!.dump(service, signal()), createWriteStream(file));
  return { file, ms: Date.now() - started, bytes: (await stat(file)).size };
}

const leftovers = async (service: DriverService) =>
  (await docker.listContainers({ all: true, filters: { label: [`berth.service_id=${service.id}`] } })).filter((c) => c.Labels['berth.role'] !== 'replica');

describe('docker engine: database dumps, restores and drills', { skip: found ? false : NO_DOCKER, timeout: 1_800_000 }, () => {
  const deployed: DriverService[] = [];
  const deploy = async (service: DriverService) => {
    deployed.push(service);
    await driver!.apply(service, quiet, signal());
    return service;
  };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'berth-backups-'));
  });
  after(async () => {
    for (const s of deployed) await driver!.uninstall(s, quiet, signal(), { purge: true }).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  });

  test('the docker driver has database backups', () => assert.ok(backups));

  describe('PostgreSQL', () => {
    let pg: DriverService;
    const psql = (sql: string) => client(pg, ['psql', '-v', 'ON_ERROR_STOP=1', '-tAc', sql]);
    const checksum = () => psql("SELECT count(*) || ' ' || md5(string_agg(id || ':' || name || ':' || payload, ',' ORDER BY id)) FROM items");
    before(async () => {
      await databaseImage(docker, 'POSTGRESQL', '15');
      pg = await deploy(databaseService('POSTGRESQL', '15', 5432));
      await psql("CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, payload text NOT NULL); INSERT INTO items SELECT i, 'item-' || i, md5(i::text) || repeat('x', 100) FROM generate_series(1, 10000) i; CREATE TABLE notes (id serial PRIMARY KEY, body text); INSERT INTO notes (body) VALUES ('a'), ('b'), ('c')");
    }, { timeout: 900_000 });

    test('a dump, the table dropped, a restore: the same 10,000 rows (same checksum)', async () => {
      const before = await checksum();
      assert.match(before, /^10000 [0-9a-f]{32}$/);
      const dump = await dumpToFile(pg, 'pg.dump');
      assert.equal((await readFile(dump.file)).subarray(0, 5).toString(), 'PGDMP', 'pg_dump -Fc output');
      await psql('DROP TABLE items; DELETE FROM notes');
      const started = Date.now();
      await backups!.restore(pg, createReadStream(dump.file), signal());
      const restoreMs = Date.now() - started;
      assert.equal(await checksum(), before);
      assert.equal(await psql('SELECT count(*) FROM notes'), '3');
      console.log(`# PostgreSQL 10k rows: dump ${dump.ms} ms (${dump.bytes} bytes), restore ${restoreMs} ms`);
    });

    test('a drill counts the rows in a throwaway container, removed afterwards', async () => {
      const report = await backups!.drill(pg, createReadStream(join(dir, 'pg.dump')), signal());
      assert.deepEqual(report, { counts: { items: 10000, notes: 3 } });
      assert.deepEqual(await leftovers(pg), []);
    });

    test('garbage does not restore, says why, and leaves the data as it was; nor does it pass a drill', async () => {
      const before = await checksum();
      await assert.rejects(backups!.restore(pg, Readable.from([Buffer.from('this is not a dump\n'.repeat(100))]), signal()),
        (err: Error & { phase?: string }) => err.phase === 'restore' && /^pg_restore exited with code 1: .*(input file does not appear to be a valid archive|did not find magic string)/.test(err.message));
      assert.equal(await checksum(), before);
      await assert.rejects(backups!.drill(pg, Readable.from(['garbage']), signal()), /pg_restore \(drill\) exited with code 1/);
      assert.deepEqual(await leftovers(pg), []);
    });

    test('a tool that fails errors the stream with its own words (a wrong password)', async () => {
      const wrong = { ...pg, plan: { ...pg.plan!, database: { ...pg.plan!.database!, password: 'wrong' } } };
      const stream = await backups!.dump(wrong, signal());
      await assert.rejects(pipeline(stream, createWriteStream(join(dir, 'wrong.dump'))),
        (err: Error & { phase?: string }) => err.phase === 'backup' && /^pg_dump exited with code 1: .*password authentication failed/.test(err.message));
    });

    test('a slow reader holds pg_dump back (nothing piles up in berth); an abort stops the stream and pg_dump', async () => {
      // ~30 MB of distinct hex that pg_dump compresses to about half: far more than any buffer between the tool and berth
      await psql("CREATE TABLE bulk AS SELECT i, (SELECT string_agg(md5((i * k)::text), '') FROM generate_series(1, 8) k) AS v FROM generate_series(1, 80000) i");
      const big = await dumpToFile(pg, 'big.dump');
      console.log(`# PostgreSQL ${await psql("SELECT pg_size_pretty(pg_database_size('postgres'))")}: dump ${big.ms} ms (${big.bytes} bytes)`);
      const controller = new AbortController();
      const stream = await backups!.dump(pg, controller.signal);
      const first = await new Promise<Buffer>((resolve) => stream.once('data', resolve));
      stream.pause();
      await new Promise((r) => setTimeout(r, 1500));
      const held = stream.readableLength + (stream as unknown as { writableLength: number }).writableLength;
      assert.ok(held <= 256 * 1024, `berth holds ${held} bytes of a paused dump of ${big.bytes}`);
      assert.ok(first.length > 0);
      const errored = new Promise<Error>((resolve) => stream.once('error', resolve));
      controller.abort(new Error('the backup was cancelled'));
      assert.match((await errored).message, /the backup was cancelled/);
      const dumping = () => psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pg_dump'");
      for (let i = 0; (await dumping()) !== '0'; i++) {
        assert.ok(i < 50, 'pg_dump still runs 10 s after the abort');
        await new Promise((r) => setTimeout(r, 200));
      }
      await psql('DROP TABLE bulk');
    });

    test('a database whose container was removed cannot be dumped, and says so', async () => {
      for (const c of await listReplicas(docker, pg.id)) await docker.getContainer(c.Id).remove({ force: true, v: true });
      await assert.rejects(backups!.dump(pg, signal()), (err: Error & { phase?: string }) => err.phase === 'backup' && /has no running container/.test(err.message));
    });
  });

  describe('MySQL (MariaDB)', () => {
    let my: DriverService;
    const mysql = (sql: string) => client(my, ['mysql', '-h127.0.0.1', '-uroot', '-N', '-B', 'berth', '-e', sql]);
    const checksum = () => mysql("SET SESSION group_concat_max_len = 16777216; SELECT CONCAT(COUNT(*), ' ', MD5(GROUP_CONCAT(id, ':', name ORDER BY id))) FROM items");
    before(async () => {
      await databaseImage(docker, 'MYSQL', '8');
      my = await deploy(databaseService('MYSQL', '8', 3306));
      await mysql("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL); INSERT INTO items SELECT seq, CONCAT('item-', seq) FROM seq_1_to_2000; CREATE PROCEDURE hello() SELECT 'hi'");
    }, { timeout: 900_000 });

    test('the MariaDB image keeps the official contract: the master login owns MYSQL_DATABASE over TCP', async () => {
      const { login } = my.plan!.database!;
      assert.equal(await client(my, ['mysql', '-h127.0.0.1', `-u${login}`, '-N', 'berth', '-e', 'SELECT CURRENT_USER()']), `${login}@%`);
    });

    test('a dump, the table and routine dropped, a restore: the same rows (same checksum) and the routine', async () => {
      const before = await checksum();
      assert.match(before, /^2000 [0-9a-f]{32}$/);
      const dump = await dumpToFile(my, 'my.sql');
      assert.match((await readFile(dump.file, 'utf8')), /CREATE DATABASE .*`berth`/);
      await mysql('DROP TABLE items; DROP PROCEDURE hello');
      await backups!.restore(my, createReadStream(dump.file), signal());
      assert.equal(await checksum(), before);
      assert.equal(await mysql('CALL hello()'), 'hi');
    });

    test('a drill counts the rows; garbage fails clearly', async () => {
      assert.deepEqual(await backups!.drill(my, createReadStream(join(dir, 'my.sql')), signal()), { counts: { 'berth.items': 2000 } });
      await assert.rejects(backups!.restore(my, Readable.from(['this is not SQL;\n']), signal()), (err: Error & { phase?: string }) => err.phase === 'restore' && /^mysql exited with code 1: .*SQL syntax/.test(err.message));
      assert.match(await checksum(), /^2000 /);
      assert.deepEqual(await leftovers(my), []);
    });
  });

  describe('Redis', () => {
    let redis: DriverService;
    const cli = (...args: string[]) => client(redis, ['redis-cli', '--no-auth-warning', ...args]);
    const checksum = async () => {
      const keys = (await cli('--scan', '--pattern', 'k:*')).split('\n').filter(Boolean).sort();
      const values = keys.length ? (await cli('mget', ...keys)).split('\n') : [];
      return `${keys.length} ${createHash('sha256').update(keys.map((k, i) => `${k}=${values[i]}`).join(',')).digest('hex')}`;
    };
    before(async () => {
      await databaseImage(docker, 'REDIS', '7');
      redis = await deploy(databaseService('REDIS', '7', 6379));
      await cli('eval', "for i = 1, 500 do redis.call('SET', 'k:' .. i, 'v:' .. i) end return 1", '0');
    }, { timeout: 900_000 });

    test('a dump (BGSAVE\'s RDB), FLUSHALL, a restore: the same keys, kept in the append-only file across a restart', async () => {
      const before = await checksum();
      assert.match(before, /^500 /);
      const dump = await dumpToFile(redis, 'redis.rdb');
      assert.equal((await readFile(dump.file)).subarray(0, 5).toString(), 'REDIS');
      await cli('flushall');
      assert.equal(await cli('dbsize'), '0');
      await backups!.restore(redis, createReadStream(dump.file), signal());
      assert.equal(await checksum(), before);
      assert.equal(await cli('config', 'get', 'appendonly'), 'appendonly\nyes');
      const files = (await client(redis, ['ls', '-A', '/data'])).split('\n');
      assert.ok(files.includes('appendonlydir') && !files.some((f) => f.startsWith('.berth')), files.join(' '));
      assert.equal(await client(redis, ['stat', '-c', '%U', '/data/appendonlydir']), 'redis');
      assert.deepEqual(await leftovers(redis), []);
      const [replica] = await listReplicas(docker, redis.id, false);
      await docker.getContainer(replica!.Id).restart();
      const after = await (async () => {
        for (let i = 0; ; i++) {
          try { return await checksum(); } catch (err) { if (i > 100) throw err; await new Promise((r) => setTimeout(r, 200)); }
        }
      })();
      assert.equal(after, before, 'the restored data is in the AOF the server reloads');
    });

    test('a drill counts the keys; garbage fails before the server is touched', async () => {
      assert.deepEqual(await backups!.drill(redis, createReadStream(join(dir, 'redis.rdb')), signal()), { counts: { keys: 500 } });
      const [running] = await listReplicas(docker, redis.id, false);
      await assert.rejects(backups!.restore(redis, Readable.from(['not an rdb']), signal()), /redis-check-rdb exited with code 1/);
      const [still] = await listReplicas(docker, redis.id, false);
      assert.equal(still?.Id, running?.Id);
      assert.match(await checksum(), /^500 /);
      assert.deepEqual(await leftovers(redis), []);
    });
  });

  test('MongoDB', { skip: 'Debian bookworm ships no MongoDB package, so no mongo image can be built offline; its commands are unit-tested only' }, () => {});
});
