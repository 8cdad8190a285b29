// A private repository cloned with a git token, for real: a smart-HTTP git server on loopback
// (git http-backend behind basic auth, test/support/git-http-server.ts) and the engine's own clone
// code (src/engine/docker/source.ts) given what berth resolves for an application whose
// git_token_id names the token (its runtime plan), and for an agentic workflow's repository (the
// run's workspace, packed as it is for the run container). Without the token, or with a wrong
// one, the clone fails; the token is in no log line, error, API answer or the packed workspace.
// No Docker: the workspace's container is a stand-in that reads the archive.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import tarStream from 'tar-stream';
import { EngineFailure } from '../../src/engine/engine.ts';
import { cloneRepository } from '../../src/engine/docker/source.ts';
import type { GitSource } from '../../src/engine/git.ts';
import { agentEnv } from '../../src/engine/agent/container-config.ts';
import { prepareWorkspace } from '../../src/engine/agent/workspace.ts';
import { buildRuntimePlan } from '../../src/modules/deployments/runtime-plan.ts';
import { prepareAgentRun } from '../../src/modules/workflows/agent-run.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { startPrivateGitServer, type PrivateGitServer } from '../support/git-http-server.ts';

const TOKEN = `glpat-${randomUUID().replaceAll('-', '')}`;
const never = new AbortController().signal;

/** everything of a failure or a log that could carry the token: the token itself and the basic-auth header value */
function leaks(text: string, username: string): boolean {
  return text.includes(TOKEN) || text.includes(Buffer.from(`${username}:${TOKEN}`).toString('base64'));
}

async function clone(source: GitSource) {
  const lines: string[] = [];
  const workDir = await mkdtemp(join(tmpdir(), 'berth-test-private-clone-'));
  const result = await cloneRepository(source, { allowLocal: false, workDir }, async (l) => { lines.push(l); }, never)
    .then((r) => ({ ok: true as const, ...r }), (err: unknown) => ({ ok: false as const, err }));
  return { result, lines };
}

describe('cloning a private repository with a git token', () => {
  let git: PrivateGitServer;
  let repo: { url: string; commit: string };
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let tokenId: string;

  before(async () => {
    git = await startPrivateGitServer(TOKEN);
    repo = await git.createRepo('private-app', { 'Dockerfile': 'FROM scratch\n', 'web/index.html': 'private v1\n' });
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    const created = await t.request('POST', `/organization/${org.id}/gitToken`, { token: org.token, body: { name: 'private server', type: 'GITLAB', token: TOKEN } });
    assert.equal(created.status, 201, created.raw);
    assert.equal(leaks(created.raw, 'oauth2'), false);
    tokenId = created.body.id;
  });
  after(async () => {
    await t.close();
    await git.close();
  });

  test('the server refuses a clone without credentials (the test server is really private)', async () => {
    const refusedBefore = git.refused;
    const { result } = await clone({ url: repo.url, branch: 'main', commit: null, rootPath: null });
    assert.equal(result.ok, false);
    assert.ok(git.refused > refusedBefore);
  });

  test('an application whose git_token_id names the token: its plan clones the repository; no log line, answer or error shows the token', async () => {
    const app = await t.request('POST', `/environment/${env.id}/application`, {
      token: org.token, body: { name: 'private-app', git_repository: { url: repo.url, branch: 'main', git_token_id: tokenId }, ports: [] },
    });
    assert.equal(app.status, 201, app.raw);
    const plan = await buildRuntimePlan(t.ctx, app.body.id);
    assert.ok(plan.source?.kind === 'git' && plan.source.git);
    const source = plan.source.git;

    const withToken = await clone(source);
    assert.ok(withToken.result.ok, `clone failed: ${withToken.result.ok ? '' : String(withToken.result.err)}`);
    assert.equal(withToken.result.commit, repo.commit);
    assert.equal(await readFile(join(withToken.result.dir, 'web/index.html'), 'utf8'), 'private v1\n');
    assert.ok(withToken.lines.some((l) => l === `Checked out ${repo.commit}`), withToken.lines.join('\n'));
    assert.equal(withToken.lines.some((l) => leaks(l, 'oauth2')), false, withToken.lines.join('\n'));
    assert.equal(git.usernames.at(-1), 'oauth2', 'a GITLAB token is sent with its provider\'s user name');
    // the clone keeps no credential
    const config = await readFile(join(withToken.result.dir, '.git/config'), 'utf8');
    assert.equal(leaks(config, 'oauth2'), false);

    for (const without of [{ ...source, token: null }, { ...source, token: `${TOKEN}-wrong` }]) {
      const failed = await clone(without);
      assert.equal(failed.result.ok, false);
      assert.ok(!failed.result.ok && failed.result.err instanceof EngineFailure, String(!failed.result.ok && failed.result.err));
      assert.equal(leaks(failed.result.err.message, 'oauth2') || failed.lines.some((l) => leaks(l, 'oauth2')), false);
    }

    for (const url of [`/application/${app.body.id}`, `/environment/${env.id}/application`, `/organization/${org.id}/gitToken/${tokenId}`, `/organization/${org.id}/gitToken`]) {
      const read = await t.request('GET', url, { token: org.token });
      assert.equal(read.status, 200, read.raw);
      assert.equal(leaks(read.raw, 'oauth2'), false, url);
    }
  });

  test('an agentic workflow\'s repository with the token is cloned into the run\'s workspace; the token is not in the archive, the container\'s environment or the log', async () => {
    const wf = await t.request('POST', `/environment/${env.id}/agenticWorkflow`, {
      token: org.token, body: { name: 'private-triage', project_repositories: [{ url: repo.url, branch: 'main', git_token_id: tokenId }] },
    });
    assert.equal(wf.status, 201, wf.raw);
    const run = await t.request('POST', `/agenticWorkflow/${wf.body.id}/run`, { token: org.token });
    assert.equal(run.status, 202, run.raw);
    const prepared = await prepareAgentRun({
      db: t.ctx.db, sealer: t.ctx.sealer, services: t.ctx.services.services, llmProviders: t.ctx.services.llmProviders, mcpServers: t.ctx.services.mcpServers, runCredentials: t.ctx.services.runCredentials, ingress: { domain: t.config.ingressDomain, port: t.config.ingressPort }, requireCredential: false, berthUrl: null,
    }, run.body.deployment_id, wf.body.id);
    assert.ok(prepared && 'spec' in prepared, JSON.stringify(prepared));
    const spec = prepared.spec;
    assert.deepEqual(spec.repositories.map((r) => ({ url: r.url, token: r.token, username: r.username })), [{ url: repo.url, token: TOKEN, username: 'oauth2' }]);
    assert.ok(spec.secrets.includes(TOKEN), 'the token is redacted from the run\'s log lines');
    assert.equal(leaks(spec.prompt, 'oauth2') || leaks(JSON.stringify(spec.mcpEnv), 'oauth2'), false);
    assert.equal(leaks(JSON.stringify(agentEnv(spec, 'http://egress:3128')), 'oauth2'), false, 'the run container\'s environment has no token');

    // a stand-in container: what prepareWorkspace copies in, read back from the archive
    const files = new Map<string, string>();
    const stand = {
      getContainer: () => ({
        putArchive: async (pack: Readable) => {
          const extract = tarStream.extract();
          extract.on('entry', (header, stream, next) => {
            const chunks: Buffer[] = [];
            stream.on('data', (c: Buffer) => chunks.push(c));
            stream.on('end', () => { if (header.type === 'file') files.set(header.name, Buffer.concat(chunks).toString('utf8')); next(); });
          });
          await new Promise<void>((resolve, reject) => { extract.on('finish', resolve); extract.on('error', reject); pack.pipe(extract); });
        },
      }),
    } as unknown as Docker;
    const lines: string[] = [];
    await prepareWorkspace(stand, 'container', spec, { prompt: spec.prompt, mcpConfig: null, context: '{}' }, { allowLocalGit: false }, async (l) => { lines.push(l); }, never);
    const dir = spec.repositories[0]!.dir;
    assert.equal(files.get(`workspace/${dir}/web/index.html`), 'private v1\n', [...files.keys()].join('\n'));
    for (const [name, content] of files) assert.equal(leaks(content, 'oauth2'), false, name);
    assert.equal(lines.some((l) => leaks(l, 'oauth2')), false, lines.join('\n'));
  });
});
