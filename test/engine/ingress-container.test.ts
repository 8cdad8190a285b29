// The ingress as a container (decision 0348, issue 38 "it comes up by itself"): berth on the
// Docker engine with INGRESS_RUNTIME=container runs HAProxy as a container on the daemon (host
// network, the data dir's ingress folder bind-mounted at its own path) from a locally built image
// (Debian's haproxy: no registry is reachable here), deploys an application that answers at its
// URL through it; a restarted berth adopts the running container, and a connection held open
// through it lives on; `berth ingress status` says it is the container, `berth ingress stop`
// removes it. The selection rule itself: src/engine/ingress/launcher-choice.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ingressContainerName } from '../../src/engine/ingress/haproxy-container.ts';
import { busyboxImage, NO_DOCKER, startGitServer, testDocker, type GitServer } from '../support/docker.ts';
import { hostOf, removeEnvironment, startEngineBerth, viaIngress, type EngineBerth } from '../support/engine-berth.ts';
import { eventually } from '../support/harness.ts';
import { haproxyImage } from '../support/haproxy-image.ts';

const found = await testDocker();
const run = promisify(execFile);

/** one keep-alive HTTP/1.1 connection to the ingress, sending GETs on it one at a time */
function heldConnection(port: number, host: string) {
  const socket = net.connect(port, '127.0.0.1');
  let buffer = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => { buffer += d; });
  socket.on('close', () => { closed = true; });
  socket.on('error', () => { closed = true; });
  return {
    get closed() { return closed; },
    async get(): Promise<string> {
      buffer = '';
      socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);
      return eventually(async () => {
        if (closed) throw new Error('the connection was closed');
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return null;
        const head = buffer.slice(0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
        const body = buffer.slice(end + 4);
        return body.length >= length ? `${head.split(' ')[1]} ${body}` : null;
      }, 10_000, 20);
    },
    close() { socket.destroy(); },
  };
}

describe('docker engine: the ingress as a container', { skip: found ? false : NO_DOCKER, timeout: 600_000 }, () => {
  const docker = found?.docker!;
  let berth: EngineBerth;
  let git: GitServer;
  let envId: string;
  let app: { id: string; host: string };
  let name: string;
  let image: string;

  const cli = async (...args: string[]) => (await run(process.execPath, [join(import.meta.dirname, '../../src/cli/main.ts'), ...args], {
    env: { PATH: process.env.PATH ?? '', ...berth.env, LOG_LEVEL: 'warn' }, encoding: 'utf8',
  })).stdout;

  before(async () => {
    const started = Date.now();
    image = await haproxyImage(docker);
    const imageMs = Date.now() - started;
    const base = await busyboxImage(docker);
    git = await startGitServer();
    await git.createRepo('web', { Dockerfile: `FROM ${base}\nCMD ["sh", "-c", "mkdir -p /tmp/www && echo web > /tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www"]\n` });
    const berthAt = Date.now();
    berth = await startEngineBerth(found!.host, { INGRESS_RUNTIME: 'container', INGRESS_IMAGE: image, LOG_LEVEL: 'info' });
    name = ingressContainerName(berth.env.DATA_DIR!);
    process.stdout.write(`# ingress image ready in ${imageMs} ms; berth (with the ingress container) ready in ${Date.now() - berthAt} ms\n`);
  }, { timeout: 600_000 });

  after(async () => {
    await removeEnvironment(berth, docker, envId);
    await berth?.close();
    await git?.close();
    if (name) await docker.getContainer(name).remove({ force: true }).catch(() => {});
  });

  test('berth starts HAProxy as a labelled host-network container and says so; an application answers at its URL through it', async () => {
    assert.match(berth.process.output(), /engine: docker at [^\n]*public URLs at http:\/\/\*\.localhost:\d+ \(HAProxy: container berth-ingress-[0-9a-f]{12} from berth-test\/haproxy:bookworm\)/);
    const info = await docker.getContainer(name).inspect();
    assert.equal(info.State.Running, true);
    assert.equal(info.Config.Labels['berth.managed'], 'true');
    assert.equal(info.Config.Labels['berth.role'], 'ingress');
    assert.equal(info.HostConfig.NetworkMode, 'host');
    assert.equal(info.HostConfig.RestartPolicy?.Name, 'unless-stopped');
    assert.equal(info.Config.User, '0:0');
    assert.ok((info.HostConfig.Memory ?? 0) > 0 && (info.HostConfig.NanoCpus ?? 0) > 0, 'memory and CPU limited');
    const ingressDir = join(berth.env.DATA_DIR!, 'ingress');
    assert.deepEqual(info.Mounts.map((m) => [m.Type, m.Source, m.Destination]), [['bind', ingressDir, ingressDir]], 'only the ingress folder, at its own path (never the Docker socket)');

    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `ingress-container-${Date.now()}` })).body;
    envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT' })).body.id;
    const created = await berth.api('POST', `/environment/${envId}/application`, {
      name: 'web', git_repository: { url: `${git.baseUrl}/web.git`, branch: 'main' }, ports: [{ internal_port: 8080, publicly_accessible: true }], cpu: 250, memory: 64,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const d = await berth.api('POST', `/application/${created.body.id}/deploy`);
    const final = await berth.settle(d.body.id);
    assert.equal(final.status, 'DEPLOYED', final.message);
    const links = await berth.api('GET', `/application/${created.body.id}/link`);
    assert.equal(links.body.public_urls_unavailable_reason, null);
    const url = links.body.results.find((l: any) => l.is_default).url as string;
    assert.equal(new URL(url).port, String(berth.ingressPort));
    app = { id: created.body.id, host: hostOf(url) };
    assert.deepEqual(await viaIngress(berth.ingressPort, app.host), { status: 200, body: 'web\n' });
    assert.match(await cli('ingress', 'status'), new RegExp(`ingress: running \\(container ${name} from berth-test/haproxy:bookworm\\), 1 route\\(s\\)`));
  });

  test('a restarted berth adopts the running container: a connection held open through it lives on', async () => {
    const before = await docker.getContainer(name).inspect();
    const held = heldConnection(berth.ingressPort, app.host);
    assert.equal(await held.get(), '200 web\n');
    await berth.stop();
    assert.equal(await held.get(), '200 web\n', 'berth stopped: the ingress serves on');
    await berth.restart();
    assert.match(berth.process.output(), /ingress: adopted the running HAProxy/);
    assert.doesNotMatch(berth.process.output(), /ingress: started HAProxy/);
    const after = await docker.getContainer(name).inspect();
    assert.equal(after.Id, before.Id);
    assert.equal(after.State.StartedAt, before.State.StartedAt, 'the container was not restarted');
    assert.equal(await held.get(), '200 web\n', 'the connection opened before the restart still answers');
    assert.equal(held.closed, false);
    held.close();
    // the adopted proxy is driven as before: a redeploy switches the route
    const d = await berth.api('POST', `/application/${app.id}/redeploy`);
    assert.equal((await berth.settle(d.body.id)).status, 'DEPLOYED');
    assert.deepEqual(await viaIngress(berth.ingressPort, app.host), { status: 200, body: 'web\n' });
  });

  test('berth ingress stop removes the container; the next start of berth brings it back with its routes', async () => {
    await berth.stop();
    assert.match(await cli('ingress', 'stop'), new RegExp(`stopped HAProxy \\(container ${name} from berth-test/haproxy:bookworm\\)`));
    await assert.rejects(docker.getContainer(name).inspect(), (err: any) => err.statusCode === 404);
    assert.equal((await viaIngress(berth.ingressPort, app.host)).status, 0, 'nothing listens any more');
    assert.match(await cli('ingress', 'status'), /ingress: not running/);
    assert.match(await cli('ingress', 'stop'), /no HAProxy started from/);
    await berth.restart();
    assert.match(berth.process.output(), /ingress: started HAProxy \(container/);
    await eventually(async () => (await viaIngress(berth.ingressPort, app.host)).status === 200, 30_000);
  });
});
