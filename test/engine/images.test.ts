// Images of container services: the reference pulled for a registry + name + tag, the Docker
// credentials of each registry kind, and real pulls from an authenticated registry on loopback
// (Debian's docker-registry): the right credentials work, wrong or none fail with the daemon's
// message, and progress is condensed to one line per layer state.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type Docker from 'dockerode';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage } from '../../src/engine/docker/build.ts';
import { EngineFailure } from '../../src/engine/engine.ts';
import { ensureImage } from '../../src/engine/docker/images.ts';
import type { RegistryAuth } from '../../src/engine/plan.ts';
import { imageReference, registryAuthFor } from '../../src/engine/registry.ts';
import { busyboxImage, NO_DOCKER, removeImage, startTestRegistry, TEST_LABEL, testDocker, type TestRegistry } from '../support/docker.ts';

const env = await testDocker();
const never = new AbortController().signal;
const LOCAL_TAG = `berth-test/images-${process.pid}:1`;

describe('image references and registry credentials', () => {
  test('the reference pulled for each kind of registry address', () => {
    assert.equal(imageReference('https://docker.io', 'nginx', '1.27'), 'nginx:1.27');
    assert.equal(imageReference('https://docker.io', 'acme/api', 'v2'), 'acme/api:v2');
    assert.equal(imageReference('https://ghcr.io', 'acme/api', 'v2'), 'ghcr.io/acme/api:v2');
    assert.equal(imageReference('https://ghcr.io/', 'ghcr.io/acme/api', 'v2'), 'ghcr.io/acme/api:v2');
    assert.equal(imageReference('http://127.0.0.1:5000', 'app', 'latest'), '127.0.0.1:5000/app:latest');
    assert.equal(imageReference('https://registry.example.com/team', 'app', '1'), 'registry.example.com/team/app:1');
    assert.equal(imageReference(null, 'app', ''), 'app:latest');
    assert.equal(imageReference('https://ghcr.io', 'quay.io/acme/api', '1'), 'quay.io/acme/api:1');
    const digest = `sha256:${'a'.repeat(64)}`;
    assert.equal(imageReference('https://ghcr.io', 'acme/api', digest), `ghcr.io/acme/api@${digest}`);
  });

  test('credentials by registry kind', () => {
    const auth = (kind: string, credentials: Record<string, unknown> | null, ref = 'ghcr.io/acme/api:1') =>
      registryAuthFor({ kind, url: 'https://ghcr.io', credentials }, ref);
    assert.equal(auth('GITHUB_CR', null), null);
    assert.deepEqual(auth('GITHUB_CR', { username: 'u', password: 'p' }), { username: 'u', password: 'p', serveraddress: 'ghcr.io' });
    assert.deepEqual(auth('DOCKER_HUB', { username: 'u', password: 'p' }, 'acme/api:1'),
      { username: 'u', password: 'p', serveraddress: 'https://index.docker.io/v1/' });
    assert.deepEqual(auth('GENERIC_CR', { username: 'u', password: 'p' }, '127.0.0.1:5000/app:1'),
      { username: 'u', password: 'p', serveraddress: '127.0.0.1:5000' });
    assert.equal(auth('GITLAB_CR', { username: 'u' }), null, 'a username alone is no credential');
    assert.deepEqual(auth('DOCR', { password: 'dop_v1_x' }), { username: 'dop_v1_x', password: 'dop_v1_x', serveraddress: 'ghcr.io' });
    assert.deepEqual(auth('SCALEWAY_CR', { scaleway_access_key: 'AK', scaleway_secret_key: 'SK' }), { username: 'nologin', password: 'SK', serveraddress: 'ghcr.io' });
    assert.deepEqual(auth('GCP_ARTIFACT_REGISTRY', { json_credentials: '{"type":"service_account"}' }),
      { username: '_json_key', password: '{"type":"service_account"}', serveraddress: 'ghcr.io' });
    assert.deepEqual(auth('AZURE_CR', { azure_client_secret: 'S' }), null, 'a secret without its application id is no credential');
    assert.throws(() => auth('ECR', { access_key_id: 'AK', secret_access_key: 'SK' }),
      (e: unknown) => e instanceof EngineFailure && e.phase === 'deploy' && /token exchange/.test(e.message));
    assert.deepEqual(auth('ECR', { username: 'AWS', password: 'tok' }), { username: 'AWS', password: 'tok', serveraddress: 'ghcr.io' });
  });
});

describe('pulls from an authenticated registry', { skip: env ? false : NO_DOCKER }, () => {
  let docker: Docker;
  let registry: TestRegistry;
  let ref: string;
  let good: RegistryAuth;

  async function pull(auth: RegistryAuth | null, opts?: { pull?: 'missing' | 'always' }, image = ref): Promise<string[]> {
    const lines: string[] = [];
    await ensureImage(docker, image, auth, async (l) => { lines.push(l); }, never, opts);
    return lines;
  }

  async function pullFailure(auth: RegistryAuth | null, image = ref): Promise<EngineFailure> {
    const err = await pull(auth, undefined, image).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof EngineFailure, `expected an EngineFailure, got ${String(err)}`);
    assert.equal(err.phase, 'deploy');
    return err;
  }

  before(async () => {
    docker = env!.docker;
    registry = await startTestRegistry(docker);
    // an image with a layer of its own, so that pulling it downloads something
    const dir = await mkdtemp(join(tmpdir(), 'berth-test-image-'));
    await writeFile(join(dir, 'Dockerfile'), `FROM ${await busyboxImage(docker)}\nRUN echo ${randomUUID()} > /id && head -c 300000 /dev/urandom > /noise\n`);
    await buildImage(docker, { contextDir: dir, dockerfilePath: null, tag: LOCAL_TAG, buildArgs: {}, labels: { [TEST_LABEL]: 'images' } }, async () => {}, never);
    await rm(dir, { recursive: true, force: true });
    ref = await registry.push(LOCAL_TAG, 'berth-test/pulled', '1');
    good = { username: registry.username, password: registry.password, serveraddress: registry.address };
    await removeImage(docker, ref);
    await removeImage(docker, LOCAL_TAG);
  });
  after(async () => {
    await removeImage(docker, ref);
    await removeImage(docker, LOCAL_TAG);
    await registry.close();
  });

  test('no credentials and wrong credentials fail with the daemon\'s message', async () => {
    assert.match((await pullFailure(null)).message, /no basic auth credentials|unauthorized|authentication required/i);
    assert.match((await pullFailure({ ...good, password: 'wrong' })).message, /unauthorized|authentication required|incorrect username or password/i);
    await assert.rejects(docker.getImage(ref).inspect(), 'nothing was pulled');
  });

  test('the right credentials pull it, with one line per layer state', async () => {
    const lines = await pull(good);
    await docker.getImage(ref).inspect();
    assert.equal(lines[0], `Pulling ${ref} as ${registry.username}`);
    assert.ok(lines.some((l) => /: Pull complete$/.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /: Already exists$/.test(l)), 'the base layers were already there');
    assert.equal(new Set(lines).size, lines.length, `no repeated progress lines: ${lines.join('\n')}`);
  });

  test("'missing' keeps a present image; 'always' pulls again", async () => {
    assert.deepEqual(await pull(good), [`Image ${ref} is present`]);
    const again = await pull(good, { pull: 'always' });
    assert.equal(again[0], `Pulling ${ref} as ${registry.username}`);
    assert.ok(again.some((l) => /Image is up to date/.test(l)), again.join('\n'));
  });

  test('a tag the registry does not have fails with the daemon\'s message', async () => {
    assert.match((await pullFailure(good, `${registry.address}/berth-test/pulled:nope`)).message, /manifest unknown|not found/i);
  });
});
