// Image builds on a real Docker daemon: output lines arrive while the build runs, build args,
// labels and .dockerignore are honored, the build's memory is capped, and a failing RUN or a
// missing Dockerfile ends in EngineFailure('build') carrying the builder's own message.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type Docker from 'dockerode';
import { EngineFailure } from '../../src/engine/engine.ts';
import { buildImage, type BuildRequest } from '../../src/engine/docker/build.ts';
import { busyboxImage, NO_DOCKER, removeImage, TEST_LABEL, testDocker } from '../support/docker.ts';
import { eventually } from '../support/harness.ts';

const env = await testDocker();
const never = new AbortController().signal;

describe('image builds', { skip: env ? false : NO_DOCKER }, () => {
  let docker: Docker;
  let base: string;
  const dirs: string[] = [];
  const tags: string[] = [];

  async function context(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'berth-test-build-'));
    dirs.push(dir);
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), content);
    }
    return dir;
  }

  function request(contextDir: string, more: Partial<BuildRequest> = {}): BuildRequest {
    const tag = `berth-test/build-${Math.random().toString(36).slice(2, 10)}:1`;
    tags.push(tag);
    return { contextDir, dockerfilePath: null, tag, buildArgs: {}, labels: { [TEST_LABEL]: 'build' }, ...more };
  }

  async function failure(req: BuildRequest): Promise<{ err: EngineFailure; lines: string[] }> {
    const lines: string[] = [];
    const err = await buildImage(docker, req, async (l) => { lines.push(l); }, never).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof EngineFailure, `expected an EngineFailure, got ${String(err)}`);
    assert.equal(err.phase, 'build');
    return { err, lines };
  }

  before(async () => {
    docker = env!.docker;
    base = await busyboxImage(docker);
  });
  after(async () => {
    for (const tag of tags) await removeImage(docker, tag);
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  test('output lines reach the log while the build runs; args and labels are applied', async () => {
    const dir = await context({
      Dockerfile: `FROM ${base}\nARG GREETING=none\nRUN echo "first line $GREETING" && sleep 2 && echo "last line"\nCMD ["sh"]\n`,
    });
    const seen: Array<{ line: string; at: number }> = [];
    const req = request(dir, { buildArgs: { GREETING: 'hello-from-args' }, labels: { [TEST_LABEL]: 'build', 'berth.service': 'web' } });
    const { imageId } = await buildImage(docker, req, async (line) => { seen.push({ line, at: Date.now() }); }, never);
    const done = Date.now();
    const first = seen.find((s) => s.line === 'first line hello-from-args');
    assert.ok(first, `the RUN output is logged: ${seen.map((s) => s.line).join('\n')}`);
    assert.ok(done - first.at >= 1500, `the first line arrived ${done - first.at} ms before the end, not at the end`);
    assert.ok(seen.some((s) => /^Step 1\/\d+ : FROM /.test(s.line)));
    const image = await docker.getImage(req.tag).inspect();
    assert.equal(image.Id, imageId);
    assert.equal(image.Config.Labels?.['berth.service'], 'web');
  });

  test('the Dockerfile path is relative to the context, and .dockerignore is honored', async () => {
    const dir = await context({
      'docker/app.dockerfile': `FROM ${base}\nCOPY . /ctx\nRUN test -e /ctx/keep.txt && test ! -e /ctx/secret.env && test ! -e /ctx/logs/a.log && test -e /ctx/logs/keep.log && echo context-ok\n`,
      'keep.txt': 'k', 'secret.env': 's', 'logs/a.log': 'a', 'logs/keep.log': 'k',
      '.dockerignore': 'secret.env\nlogs\n!logs/keep.log\n',
    });
    const lines: string[] = [];
    await buildImage(docker, request(dir, { dockerfilePath: 'docker/app.dockerfile' }), async (l) => { lines.push(l); }, never);
    assert.ok(lines.includes('context-ok'), lines.join('\n'));
  });

  test('a target builds one stage of a multi-stage Dockerfile', async () => {
    const dir = await context({
      Dockerfile: `FROM ${base} AS tools\nRUN echo in-tools-stage\nFROM tools AS final\nRUN echo in-final-stage\n`,
    });
    const lines: string[] = [];
    await buildImage(docker, request(dir, { target: 'tools' }), async (l) => { lines.push(l); }, never);
    assert.ok(lines.includes('in-tools-stage'), lines.join('\n'));
    assert.ok(!lines.includes('in-final-stage'), 'the later stage is not built');
  });

  test('each build step runs under the memory limit', async () => {
    const dir = await context({
      Dockerfile: `FROM ${base}\nRUN echo "limit=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max)"\n`,
    });
    const lines: string[] = [];
    await buildImage(docker, request(dir, { memoryBytes: 256 * 1024 * 1024 }), async (l) => { lines.push(l); }, never);
    assert.ok(lines.includes(`limit=${256 * 1024 * 1024}`), lines.join('\n'));
  });

  test('a failing RUN gives the builder\'s own error', async () => {
    const dir = await context({ Dockerfile: `FROM ${base}\nRUN echo about to fail && exit 3\n` });
    const { err, lines } = await failure(request(dir));
    assert.match(err.message, /returned a non-zero code: 3/);
    assert.ok(lines.includes('about to fail'), 'the output before the failure is logged');
    assert.equal(lines.at(-1), err.message);
  });

  test('a missing Dockerfile, a bad instruction and a missing base image fail with the builder\'s words', async () => {
    const empty = await context({ 'README.md': 'no Dockerfile here' });
    assert.match((await failure(request(empty))).err.message, /Cannot locate specified Dockerfile: Dockerfile/);
    const bad = await context({ Dockerfile: `FROM ${base}\nFROBNICATE now\n` });
    assert.match((await failure(request(bad))).err.message, /unknown instruction: FROBNICATE/i);
    const missing = await context({ Dockerfile: 'FROM berth-test/does-not-exist:1\n' });
    assert.match((await failure(request(missing))).err.message, /does-not-exist|registry-1\.docker\.io|pull access denied/);
  });

  test('a Dockerfile path outside the context is refused', async () => {
    const dir = await context({ Dockerfile: `FROM ${base}\n` });
    assert.match((await failure(request(dir, { dockerfilePath: '../Dockerfile' }))).err.message, /not inside the build context/);
  });

  test('an abort stops the build promptly', async () => {
    const dir = await context({ Dockerfile: `FROM ${base}\nRUN echo sleeping && sleep 30\n` });
    const controller = new AbortController();
    const started = Date.now();
    let stepContainer = '';
    const building = buildImage(docker, request(dir), async (l) => {
      stepContainer = /Running in ([0-9a-f]+)/.exec(l)?.[1] ?? stepContainer;
      if (l === 'sleeping') controller.abort(new Error('deployment cancelled'));
    }, controller.signal);
    await assert.rejects(building, /deployment cancelled/);
    assert.ok(Date.now() - started < 15_000, `aborted after ${Date.now() - started} ms`);
    assert.ok(stepContainer, 'the RUN step reported its container');
    // the builder stops and removes the step's container once its client is gone
    await eventually(() => docker.getContainer(stepContainer).inspect().then(() => false, (e: { statusCode?: number }) => e.statusCode === 404), 20_000, 250);
  });
});
