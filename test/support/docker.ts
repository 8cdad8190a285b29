// Docker fixtures for engine tests: the daemon to test against (BERTH_TEST_DOCKER_HOST, else
// DOCKER_HOST; none → tests skip, unless BERTH_REQUIRE_DOCKER=1 where that is an error), a
// busybox base image built from the host's static busybox, and re-exports of the other
// fixtures (git server, authenticated registry, database images).
import Docker from 'dockerode';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage } from '../../src/engine/docker/build.ts';

export { startGitServer, type GitServer } from './git-server.ts';
export { startTestRegistry, type TestRegistry } from './registry.ts';
export { databaseImage } from './database-image.ts';

const BUSYBOX_IMAGE = 'berth-test/busybox:1';
/** label every test object carries, so a cleanup can find what a run left behind */
export const TEST_LABEL = 'berth-test';

/** a dockerode client for a DOCKER_HOST-style address (unix:///path, tcp://host:port, or a bare socket path) */
export function dockerAt(host: string): Docker {
  if (host.startsWith('unix://')) return new Docker({ socketPath: host.slice('unix://'.length) });
  if (host.startsWith('/')) return new Docker({ socketPath: host });
  const u = new URL(host.replace(/^tcp:/, 'http:'));
  return new Docker({ host: u.hostname, port: Number(u.port || 2375), protocol: 'http' });
}

async function answers(docker: Docker): Promise<boolean> {
  const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3000).unref());
  return Promise.race([docker.ping().then(() => true, () => false), timeout]);
}

let found: Promise<{ docker: Docker; host: string } | null> | undefined;

/**
 * The daemon engine tests run against, or null when none answers (tests then skip and say why).
 * With BERTH_REQUIRE_DOCKER=1 (CI) a missing daemon throws instead.
 */
export function testDocker(): Promise<{ docker: Docker; host: string } | null> {
  found ??= (async () => {
    const candidates = [process.env.BERTH_TEST_DOCKER_HOST, process.env.DOCKER_HOST].filter((h): h is string => !!h);
    for (const host of candidates) {
      const docker = dockerAt(host);
      if (await answers(docker)) return { docker, host };
    }
    if (process.env.BERTH_REQUIRE_DOCKER === '1') {
      throw new Error(`BERTH_REQUIRE_DOCKER=1 but no Docker daemon answers at ${candidates.join(' or ') || '(BERTH_TEST_DOCKER_HOST and DOCKER_HOST unset)'}`);
    }
    return null;
  })();
  return found;
}

/** the reason engine tests give when they skip */
export const NO_DOCKER = 'no Docker daemon answers (set BERTH_TEST_DOCKER_HOST or DOCKER_HOST; CI sets BERTH_REQUIRE_DOCKER=1)';

const silent = async () => {};
let busybox: Promise<string> | undefined;

/** `berth-test/busybox:1`: FROM scratch + the host's static busybox with its applets in /bin, PATH=/bin */
export function busyboxImage(docker: Docker): Promise<string> {
  busybox ??= (async () => {
    try {
      await docker.getImage(BUSYBOX_IMAGE).inspect();
      return BUSYBOX_IMAGE;
    } catch { /* build it */ }
    const dir = await mkdtemp(join(tmpdir(), 'berth-test-busybox-'));
    try {
      await copyFile('/bin/busybox', join(dir, 'busybox'));
      await writeFile(join(dir, 'Dockerfile'), [
        'FROM scratch',
        'COPY busybox /bin/busybox',
        'RUN ["/bin/busybox", "--install", "-s", "/bin"]',
        'ENV PATH=/bin',
        '',
      ].join('\n'));
      await buildImage(docker, { contextDir: dir, dockerfilePath: null, tag: BUSYBOX_IMAGE, buildArgs: {}, labels: { [TEST_LABEL]: 'busybox' } },
        silent, AbortSignal.timeout(120_000));
      return BUSYBOX_IMAGE;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  busybox.catch(() => { busybox = undefined; });
  return busybox;
}

/** removes an image if present (tests clean up the tags they made) */
export async function removeImage(docker: Docker, ref: string): Promise<void> {
  await docker.getImage(ref).remove({ force: true }).catch((err: { statusCode?: number }) => {
    if (err.statusCode !== 404) throw err;
  });
}
