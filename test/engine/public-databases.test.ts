// PUBLIC and PRIVATE databases on the docker engine (issue 31, item 2; decision 0333): a PUBLIC
// database answers on the host port berth reserved for it, at the address its masterCredentials
// and its own `host`/`port` give, and psql on the host logs in with the master credentials (a
// program squatting the port fails the deployment, naming it); the port stays across redeploys,
// is given to no other database while held (the range here has one port), and is freed when the
// database is edited PRIVATE (effective at its next deployment) or deleted. A PRIVATE database
// publishes no port at all (docker inspect) and the same login fails on every address of the
// host, while a client on the environment's network logs in.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { networkName } from '../../src/engine/docker/naming.ts';
import { databaseImage, NO_DOCKER, testDocker } from '../support/docker.ts';
import { removeEnvironment, startEngineBerth, type EngineBerth } from '../support/engine-berth.ts';
import { eventually } from '../support/harness.ts';

const found = await testDocker();

interface Credentials { host: string; port: number; login: string; password: string }

/** psql on this host: its output, or the error it printed */
function hostPsql(c: Credentials, sql: string, host = c.host, port = c.port): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    execFile('psql', ['-h', host, '-p', String(port), '-U', c.login, '-d', 'postgres', '-w', '-tAc', sql], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PGPASSWORD: c.password, PGCONNECT_TIMEOUT: '5' }, timeout: 20_000,
    }, (err, stdout, stderr) => resolve({ ok: !err, out: `${stdout}${stderr}`.trim() }));
  });
}

const bindable = (port: number) => new Promise<boolean>((resolve) => {
  const s = createServer();
  s.once('error', () => resolve(false));
  s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
});

/** a few consecutive ports free on loopback, away from the ephemeral range, for this berth's reservations */
async function freeRange(size: number): Promise<{ from: number; to: number }> {
  for (;;) {
    const from = 20_000 + Math.floor(Math.random() * 9_000);
    let free = true;
    for (let p = from; p < from + size && free; p++) free = await bindable(p);
    if (free) return { from, to: from + size - 1 };
  }
}

/** every IPv4 address of this host: loopback, the machine's own, the Docker bridges' */
const hostAddresses = () => ['127.0.0.1', ...Object.values(networkInterfaces()).flat().filter((i) => i && i.family === 'IPv4' && !i.internal).map((i) => i!.address)];

describe('docker engine: PUBLIC and PRIVATE databases', { skip: found ? false : NO_DOCKER, timeout: 900_000 }, () => {
  let berth: EngineBerth;
  let envId: string;
  let range: { from: number; to: number };
  const docker = found?.docker!;

  before(async () => {
    await databaseImage(docker, 'POSTGRESQL', '15');
    range = await freeRange(1);
    berth = await startEngineBerth(found!.host, { DATABASE_PUBLIC_PORTS: `${range.from}-${range.to}` });
    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `public-db-${Date.now()}` })).body;
    envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT' })).body.id;
  }, { timeout: 600_000 });
  after(async () => {
    await removeEnvironment(berth, docker, envId);
    await berth?.close();
  });

  const credentialsOf = async (id: string): Promise<Credentials> => {
    const r = await berth.api('GET', `/database/${id}/masterCredentials`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const deploy = async (id: string, action: 'deploy' | 'redeploy' | 'restart-service') => {
    const final = await berth.settle((await berth.api('POST', `/database/${id}/${action}`)).body.id);
    assert.equal(final.status, action === 'restart-service' ? 'RESTARTED' : 'DEPLOYED', final.message);
  };
  /** the host bindings of the database's one replica, as Docker has them */
  const bindingsOf = async (id: string) => {
    const [replica, ...more] = await docker.listContainers({ filters: { label: [`berth.service_id=${id}`, 'berth.role=replica'] } });
    assert.ok(replica && more.length === 0, 'one running replica');
    const info = await docker.getContainer(replica.Id).inspect();
    const published = Object.values(info.NetworkSettings.Ports ?? {}).flatMap((b) => b ?? []);
    return { configured: info.HostConfig.PortBindings ?? {}, published };
  };
  const create = async (name: string, accessibility?: 'PUBLIC' | 'PRIVATE') => {
    const r = await berth.api('POST', `/environment/${envId}/database`, { name, type: 'POSTGRESQL', mode: 'CONTAINER', version: '15', ...(accessibility ? { accessibility } : {}) });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body;
  };

  let publicId: string;
  let publicPort: number;

  test('a PUBLIC database is published on its reserved port and psql on the host logs in with the master credentials', async () => {
    const db = await create('public-db', 'PUBLIC');
    publicId = db.id;
    const credentials = await credentialsOf(db.id);
    assert.equal(credentials.host, '127.0.0.1', 'INGRESS_HOST: where the port is published');
    assert.ok(credentials.port >= range.from && credentials.port <= range.to, `port ${credentials.port} in DATABASE_PUBLIC_PORTS`);
    assert.deepEqual({ host: db.host, port: db.port }, { host: credentials.host, port: credentials.port }, 'the database shows the same address');
    publicPort = credentials.port;

    // a program taking the port after it was reserved fails the deployment, saying which port
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(publicPort, '127.0.0.1', () => r()));
    const blocked = await berth.settle((await berth.api('POST', `/database/${db.id}/deploy`)).body.id);
    await new Promise<void>((r) => squatter.close(() => r()));
    assert.equal(blocked.status, 'DEPLOYMENT_ERROR');
    assert.match(blocked.message, new RegExp(`port ${publicPort} on 127\\.0\\.0\\.1, reserved for this database \\(DATABASE_PUBLIC_PORTS\\), is taken`));

    await deploy(db.id, 'deploy');
    const login = await hostPsql(credentials, 'select current_user');
    assert.ok(login.ok, login.out);
    assert.equal(login.out, credentials.login);
    const { configured, published } = await bindingsOf(db.id);
    assert.deepEqual(configured, { '5432/tcp': [{ HostIp: '127.0.0.1', HostPort: String(publicPort) }] }, 'only the database port, only on INGRESS_HOST');
    assert.deepEqual(published.map((b) => `${b.HostIp}:${b.HostPort}`), [`127.0.0.1:${publicPort}`]);

    // a redeploy keeps the address, and the data
    assert.ok((await hostPsql(credentials, `create table kept (v text); insert into kept values ('still here')`)).ok);
    await deploy(db.id, 'redeploy');
    assert.equal((await credentialsOf(db.id)).port, publicPort);
    const after = await eventually(async () => {
      const r = await hostPsql(credentials, 'select v from kept');
      return r.ok ? r.out : null;
    }, 60_000, 500);
    assert.equal(after, 'still here');
  });

  test('a PRIVATE database publishes no port: the host cannot log in, its environment can', async () => {
    const db = await create('private-db');
    assert.equal(db.accessibility, 'PRIVATE');
    const credentials = await credentialsOf(db.id);
    assert.equal(credentials.host, `postgresql-${db.id.slice(0, 8)}`, 'the name on the environment network');
    assert.equal(credentials.port, 5432);
    assert.deepEqual({ host: db.host, port: db.port }, { host: credentials.host, port: credentials.port });
    await deploy(db.id, 'deploy');
    // readiness without a published port, at deploy and at a restart, is read inside the container
    await deploy(db.id, 'restart-service');
    const { configured, published } = await bindingsOf(db.id);
    assert.deepEqual(Object.values(configured).flat(), [], 'no host port configured');
    assert.deepEqual(published, [], 'no host port published');
    for (const address of hostAddresses()) {
      for (const port of [credentials.port, ...Array.from({ length: range.to - range.from + 1 }, (_, i) => range.from + i)]) {
        const attempt = await hostPsql(credentials, 'select 1', address, port);
        assert.equal(attempt.ok, false, `logged in at ${address}:${port}: ${attempt.out}`);
      }
    }
    // the database runs and the credentials are right: a client on the environment's network logs in
    const client = await docker.createContainer({
      Image: 'postgres:15', Entrypoint: ['psql'], Env: [`PGPASSWORD=${credentials.password}`],
      Cmd: ['-h', credentials.host, '-p', String(credentials.port), '-U', credentials.login, '-d', 'postgres', '-tAc', 'select current_user'],
      HostConfig: { NetworkMode: networkName(envId) }, Labels: { 'berth-test': 'psql' },
    });
    const output = await client.attach({ stream: true, stdout: true, stderr: true });
    let text = '';
    output.on('data', (d: Buffer) => { text += d.toString('utf8'); });
    await client.start();
    const { StatusCode } = await client.wait() as { StatusCode: number };
    await client.remove({ force: true, v: true });
    assert.equal(StatusCode, 0, text);
    assert.match(text, new RegExp(credentials.login));
  });

  test('accessibility changes at the next deployment; a PUBLIC database holds its port until it is edited PRIVATE or deleted', async () => {
    assert.ok(publicId, 'the PUBLIC database of the first test');
    const before = await credentialsOf(publicId);
    const refusedWhileHeld = await berth.api('POST', `/environment/${envId}/database`, { name: 'extra-db', type: 'POSTGRESQL', mode: 'CONTAINER', version: '15', accessibility: 'PUBLIC' });
    assert.equal(refusedWhileHeld.status, 409, 'the range has one port, and public-db holds it');
    assert.match(refusedWhileHeld.body.message, /DATABASE_PUBLIC_PORTS/);

    const edited = await berth.api('PUT', `/database/${publicId}`, { accessibility: 'PRIVATE' });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.deepEqual({ host: edited.body.host, port: edited.body.port }, { host: `postgresql-${publicId.slice(0, 8)}`, port: 5432 });
    assert.equal((await berth.api('GET', `/database/${publicId}/status`)).body.service_deployment_status, 'OUT_OF_DATE');
    assert.ok((await hostPsql(before, 'select 1')).ok, 'still published until the next deployment');
    const refusedWhilePublished = await berth.api('POST', `/environment/${envId}/database`, { name: 'extra-db', type: 'POSTGRESQL', mode: 'CONTAINER', version: '15', accessibility: 'PUBLIC' });
    assert.equal(refusedWhilePublished.status, 409, 'the running replica still publishes the port');

    await deploy(publicId, 'redeploy');
    assert.deepEqual((await bindingsOf(publicId)).published, [], 'PRIVATE after the redeploy');
    const refused = await hostPsql(before, 'select 1');
    assert.equal(refused.ok, false);
    assert.match(refused.out, /refused|could not connect/i);

    // the port is free again: another database takes it, and gives it back when deleted
    const extra = await create('extra-db', 'PUBLIC');
    assert.equal(extra.port, publicPort);
    assert.equal((await berth.api('DELETE', `/database/${extra.id}`)).status, 204);
    const reopened = await berth.api('PUT', `/database/${publicId}`, { accessibility: 'PUBLIC' });
    assert.equal(reopened.status, 200, JSON.stringify(reopened.body));
    assert.deepEqual({ host: reopened.body.host, port: reopened.body.port }, { host: '127.0.0.1', port: publicPort });
    await deploy(publicId, 'redeploy');
    const again = await hostPsql(await credentialsOf(publicId), 'select v from kept');
    assert.ok(again.ok, again.out);
    assert.equal(again.out, 'still here');
  });
});
