// The locally built `postgres:15` test image keeps the official image's contract that the
// engine's database containers rely on: POSTGRES_USER/PASSWORD/DB create the login and the
// database, remote clients need the password, data lives in /var/lib/postgresql/data, the server
// runs as the postgres user and logs to stdout/stderr.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type Docker from 'dockerode';
import pg from 'pg';
import { databaseImage, NO_DOCKER, TEST_LABEL, testDocker } from '../support/docker.ts';
import { eventually } from '../support/harness.ts';

const env = await testDocker();

describe('postgres test image', { skip: env ? false : NO_DOCKER }, () => {
  let docker: Docker;
  let container: Docker.Container;
  let port: number;

  const login = async (password: string) => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'app', password, database: 'appdb', connectionTimeoutMillis: 3000 });
    await client.connect();
    try {
      return (await client.query<{ user: string; db: string; data: string }>(
        "select current_user as user, current_database() as db, current_setting('data_directory') as data")).rows[0]!;
    } finally {
      await client.end();
    }
  };

  before(async () => {
    docker = env!.docker;
    const image = await databaseImage(docker, 'POSTGRESQL', '15');
    container = await docker.createContainer({
      Image: image, name: `berth-test-pg-${process.pid}`, Labels: { [TEST_LABEL]: 'database-image' },
      Env: ['POSTGRES_USER=app', 'POSTGRES_PASSWORD=s3cret-pw', 'POSTGRES_DB=appdb'],
      HostConfig: { PortBindings: { '5432/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] }, Memory: 256 * 1024 * 1024 },
    });
    await container.start();
    port = Number((await container.inspect()).NetworkSettings.Ports['5432/tcp']![0]!.HostPort);
  }, { timeout: 15 * 60_000 }); // a cold cache runs debootstrap (about 4 minutes on 2 cores)
  after(async () => {
    await container?.remove({ force: true, v: true });
  });

  test('the master credentials log in over TCP; a wrong password does not', async () => {
    const row = await eventually(() => login('s3cret-pw').catch(() => null), 60_000, 250);
    assert.deepEqual(row, { user: 'app', db: 'appdb', data: '/var/lib/postgresql/data' });
    await assert.rejects(login('wrong'), /password authentication failed for user "app"/);
  });

  test('runs as postgres and logs to stdout/stderr', async () => {
    const exec = await container.exec({ Cmd: ['stat', '-c', '%U %n', '/proc/1'], AttachStdout: true, AttachStderr: true, Tty: true });
    const stream = await exec.start({ hijack: true, stdin: false, Tty: true });
    let out = '';
    for await (const chunk of stream) out += chunk.toString();
    assert.equal(out.trim(), 'postgres /proc/1', 'the server (pid 1) runs as postgres');
    const logs = (await container.logs({ stdout: true, stderr: true })).toString('utf8');
    assert.match(logs, /database system is ready to accept connections/);
  });

  test('a start without POSTGRES_PASSWORD fails the way the official image does', async () => {
    const bare = await docker.createContainer({ Image: 'postgres:15', Labels: { [TEST_LABEL]: 'database-image' }, HostConfig: { AutoRemove: false } });
    try {
      await bare.start();
      const { StatusCode } = await bare.wait();
      assert.equal(StatusCode, 1);
      assert.match((await bare.logs({ stdout: true, stderr: true })).toString('utf8'), /POSTGRES_PASSWORD is not set/);
    } finally {
      await bare.remove({ force: true, v: true });
    }
  });
});
