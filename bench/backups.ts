// `npm run bench:backups`: backup throughput (issue 39). A PostgreSQL database deployed by berth
// on the docker engine is filled to BENCH_BACKUP_MB (1024) of table data; each round takes a
// backup through berth's API (pg_dump -Fc in the container → gzip → AES-256-GCM → BACKUP_DIR, read
// back and checked) and, interleaved, the same dump by hand: `docker exec … pg_dump -Fc | gzip >
// file` on the same database, same run. Reports MB/s of each, their ratio (target ≥ 0.8), and
// berth's RSS during its backups (sampled every 100 ms from /proc: it must stay flat, the dump is
// never whole in memory). Needs Docker (BERTH_TEST_DOCKER_HOST or DOCKER_HOST). BENCH_ROUNDS (3).
import { execFile, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { databaseImage, dockerAt } from '../test/support/docker.ts';
import { removeEnvironment, startEngineBerth } from '../test/support/engine-berth.ts';
import { median } from './measure.ts';

const HOST = process.env.BERTH_TEST_DOCKER_HOST ?? process.env.DOCKER_HOST;
if (!HOST) throw new Error('bench:backups needs Docker: set BERTH_TEST_DOCKER_HOST or DOCKER_HOST');
const MB = Number(process.env.BENCH_BACKUP_MB ?? 1024);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const log = (line: string) => process.stderr.write(`[bench:backups] ${line}\n`);

const bindable = (port: number) => new Promise<boolean>((resolve) => {
  const s = createServer();
  s.once('error', () => resolve(false));
  s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
});

function psql(c: { host: string; port: number; login: string; password: string }, sql: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('psql', ['-h', c.host, '-p', String(c.port), '-U', c.login, '-d', 'postgres', '-w', '-v', 'ON_ERROR_STOP=1', '-tAc', sql], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PGPASSWORD: c.password }, timeout: 3_600_000, maxBuffer: 1 << 20,
    }, (err, stdout, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(stdout.trim())));
  });
}

async function rssKiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** the hand-made dump: docker exec pg_dump -Fc, piped through gzip (level 6, its default) into a file */
async function byHand(container: string, c: { login: string; password: string }, file: string): Promise<number> {
  const started = performance.now();
  const dump = spawn('docker', ['-H', HOST!, 'exec', '-e', `PGPASSWORD=${c.password}`, container, 'pg_dump', '-Fc', '-h', '127.0.0.1', '-U', c.login, 'postgres'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const gzip = spawn('gzip', ['-c'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => dump.on('close', resolve));
  dump.stdout.pipe(gzip.stdin);
  await pipeline(gzip.stdout, createWriteStream(file));
  const code = await exited;
  if (code !== 0) throw new Error(`pg_dump by hand exited ${code}`);
  return (performance.now() - started) / 1000;
}

const docker = dockerAt(HOST);
await databaseImage(docker, 'POSTGRESQL', '15');
let port = 0;
while (!port) { const p = 20_000 + Math.floor(Math.random() * 9_000); if (await bindable(p)) port = p; }
const berth = await startEngineBerth(HOST, { DATABASE_PUBLIC_PORTS: `${port}-${port}`, LOG_LEVEL: 'warn' });
const work = await mkdtemp(join(tmpdir(), 'berth-bench-backups-'));
let envId = '';
try {
  const org = (await berth.api('GET', '/organization')).body.results[0].id;
  const project = (await berth.api('POST', `/organization/${org}/project`, { name: `bench-backups-${Date.now()}` })).body;
  envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'bench', mode: 'DEVELOPMENT' })).body.id;
  const db = (await berth.api('POST', `/environment/${envId}/database`, {
    name: 'big', type: 'POSTGRESQL', version: '15', mode: 'CONTAINER', accessibility: 'PUBLIC', memory: 1024, cpu: 2000, storage: 20,
  })).body;
  const deployed = await berth.settle((await berth.api('POST', `/database/${db.id}/deploy`)).body.id, 600_000);
  if (deployed.status !== 'DEPLOYED') throw new Error(`the database did not deploy: ${JSON.stringify(deployed)}`);
  const creds = (await berth.api('GET', `/database/${db.id}/masterCredentials`)).body;
  for (let i = 0; ; i++) { try { await psql(creds, 'select 1'); break; } catch (err) { if (i > 120) throw err; await new Promise((r) => setTimeout(r, 500)); } }

  // ~170 bytes a row on disk: four md5s (128 hex characters) and an id; dump-like, half compressible
  const rows = Math.round((MB * 1024 * 1024) / 170);
  log(`filling ${MB} MB (${rows} rows)…`);
  const fillStarted = performance.now();
  await psql(creds, `create table data (id bigint, payload text);
    insert into data select g, md5(g::text) || md5((g * 7)::text) || md5((g * 13)::text) || md5((g * 31)::text) from generate_series(1, ${rows}) g;`);
  const bytes = Number(await psql(creds, "select pg_database_size('postgres')"));
  log(`filled in ${((performance.now() - fillStarted) / 1000).toFixed(0)} s: database ${(bytes / 1048576).toFixed(0)} MiB`);
  const container = (await docker.listContainers({ filters: { label: [`berth.service_id=${db.id}`] } }))[0]?.Names[0]?.replace(/^\//, '');
  if (!container) throw new Error('the database container was not found');

  const pid = berth.process.child.pid!;
  const berthSeconds: number[] = [];
  const handSeconds: number[] = [];
  const rssGrowth: number[] = [];
  let stored = 0;
  let handFile = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const hand = await byHand(container, creds, join(work, `hand-${round}.gz`));
    handSeconds.push(hand);
    handFile = (await stat(join(work, `hand-${round}.gz`))).size;
    await rm(join(work, `hand-${round}.gz`));

    const before = await rssKiB(pid);
    let peak = before;
    const sampler = setInterval(() => { rssKiB(pid).then((v) => { peak = Math.max(peak, v); }, () => undefined); }, 100);
    const started = performance.now();
    const taken = (await berth.api('POST', `/database/${db.id}/backup`, { name: `bench-${round}`, message: '' })).body;
    let backup: any;
    for (;;) {
      backup = (await berth.api('GET', `/database/${db.id}/backup/${taken.id}`)).body;
      if (backup.status === 'SUCCEEDED' || backup.status === 'FAILED') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    if (backup.status !== 'SUCCEEDED') throw new Error(`the backup failed: ${backup.error}`);
    berthSeconds.push(seconds);
    rssGrowth.push((peak - before) / 1024);
    stored = backup.size;
    await berth.api('DELETE', `/database/${db.id}/backup/${taken.id}`);
    log(`round ${round}: berth ${seconds.toFixed(1)} s (RSS +${((peak - before) / 1024).toFixed(0)} MiB), by hand ${hand.toFixed(1)} s`);
  }
  const mbps = (s: number) => bytes / 1048576 / s;
  const berthMedian = median(berthSeconds);
  const handMedian = median(handSeconds);
  const report = {
    database_mib: Math.round(bytes / 1048576), rounds: ROUNDS,
    berth_seconds: berthSeconds.map((s) => Number(s.toFixed(2))), by_hand_seconds: handSeconds.map((s) => Number(s.toFixed(2))),
    berth_mib_per_s: Number(mbps(berthMedian).toFixed(1)), by_hand_mib_per_s: Number(mbps(handMedian).toFixed(1)),
    ratio: Number((handMedian / berthMedian).toFixed(2)), target: 0.8,
    berth_rss_growth_mib: rssGrowth.map((v) => Number(v.toFixed(0))),
    stored_mib: Number((stored / 1048576).toFixed(1)), by_hand_file_mib: Number((handFile / 1048576).toFixed(1)),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  if (envId) await removeEnvironment(berth, docker, envId).catch(() => undefined);
  await berth.close();
  await rm(work, { recursive: true, force: true });
}
