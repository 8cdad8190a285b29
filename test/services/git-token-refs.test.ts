// git_token_id in services: an unknown token, or one of another organization, is a 400 naming the
// member at create and edit of an application, a job built from git and an agentic workflow
// (nothing stored); a token of the organization is accepted (stored in lower case); and the
// runtime plan of an application and a git job carries the unsealed token and its provider's
// user name for the clone, while no API answer shows it (and fails naming a token gone since).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { buildRuntimePlan } from '../../src/modules/deployments/runtime-plan.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

const UNKNOWN = '00000000-0000-4000-8000-00000000beef';
const SECRET = 'glpat-refs-test-secret-5d2e8c';

describe('git_token_id of applications, jobs and agentic workflows', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let tokenId: string;
  let othersTokenId: string;

  const repo = (gitTokenId: string | null, url = 'https://gitlab.com/acme/private.git') => ({ url, branch: 'main', git_token_id: gitTokenId });
  const servicesOf = async () => (await t.ctx.db.query<{ n: number }>('select count(*)::int as n from services where environment_id = $1', [env.id]))[0]!.n;
  const specOf = async (id: string) => (await t.ctx.db.query<{ spec: Record<string, any> }>('select spec from services where id = $1', [id]))[0]!.spec;
  const bodies = (gitTokenId: string | null) => ({
    application: { name: `app-${randomUUID().slice(0, 6)}`, git_repository: repo(gitTokenId) },
    job: { name: `job-${randomUUID().slice(0, 6)}`, source: { docker: { git_repository: repo(gitTokenId) } }, schedule: { on_start: {} } },
    agenticWorkflow: { name: `wf-${randomUUID().slice(0, 6)}`, project_repositories: [repo(null, 'https://github.com/acme/public.git'), repo(gitTokenId)] },
  });
  const FIELDS = {
    application: 'git_repository.git_token_id', job: 'source.docker.git_repository.git_token_id', agenticWorkflow: 'project_repositories[1].git_token_id',
  } as const;

  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    const mine = await t.request('POST', `/organization/${org.id}/gitToken`, { token: org.token, body: { name: 'gitlab', type: 'GITLAB', token: SECRET } });
    assert.equal(mine.status, 201, mine.raw);
    tokenId = mine.body.id;
    const other = await seedOrganization(t);
    const theirs = await t.request('POST', `/organization/${other.id}/gitToken`, { token: other.token, body: { name: 'theirs', type: 'GITHUB', token: 'ghp-other-org' } });
    othersTokenId = theirs.body.id;
  });
  after(async () => { await t.close(); });

  for (const kind of ['application', 'job', 'agenticWorkflow'] as const) {
    test(`${kind}: an unknown token or another organization's is 400 at create, nothing stored; its own token is accepted`, async () => {
      const before = await servicesOf();
      for (const id of [UNKNOWN, othersTokenId]) {
        const r = await t.request('POST', `/environment/${env.id}/${kind}`, { token: org.token, body: bodies(id)[kind] });
        const err = expectErrorBody(r, 400);
        assert.equal(err.message, `${FIELDS[kind]}: ${id} is not a git token of this organization (see /organization/{id}/gitToken)`);
        assert.equal(err.code, 'unknown_git_token');
      }
      assert.equal(await servicesOf(), before);
      const ok = await t.request('POST', `/environment/${env.id}/${kind}`, { token: org.token, body: bodies(tokenId.toUpperCase())[kind] });
      assert.equal(ok.status, 201, ok.raw);
      assert.equal(ok.raw.includes(SECRET), false);
      const spec = await specOf(ok.body.id);
      const stored = kind === 'application' ? spec.git_repository : kind === 'job' ? spec.source.docker.git_repository : spec.project_repositories[1];
      assert.equal(stored.git_token_id, tokenId);
    });

    test(`${kind}: an unknown token or another organization's is 400 at edit, the stored one kept`, async () => {
      const made = await t.request('POST', `/environment/${env.id}/${kind}`, { token: org.token, body: bodies(tokenId)[kind] });
      assert.equal(made.status, 201, made.raw);
      const path = kind === 'agenticWorkflow' ? `/agenticWorkflow/${made.body.id}` : `/${kind}/${made.body.id}`;
      const edit = (id: string | null) => {
        const all = bodies(id);
        const body = kind === 'application' ? { git_repository: all.application.git_repository } : kind === 'job' ? { source: all.job.source } : { ...all.agenticWorkflow, name: made.body.name };
        return t.request('PUT', path, { token: org.token, body });
      };
      const before = await specOf(made.body.id);
      for (const id of [UNKNOWN, othersTokenId]) {
        assert.equal(expectErrorBody(await edit(id), 400).message, `${FIELDS[kind]}: ${id} is not a git token of this organization (see /organization/{id}/gitToken)`);
      }
      assert.deepEqual(await specOf(made.body.id), before);
      const none = await edit(null);
      assert.equal(none.status, 200, none.raw);
    });
  }

  test('a job built from a raw Dockerfile needs no token', async () => {
    const r = await t.request('POST', `/environment/${env.id}/job`, { token: org.token, body: { name: 'raw', source: { docker: { dockerfile_raw: 'FROM scratch' } }, schedule: { on_start: {} } } });
    assert.equal(r.status, 201, r.raw);
  });

  test('the runtime plan of an application and of a git job carries the token and its provider\'s user name; a public repository none', async () => {
    const app = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: bodies(tokenId).application });
    const job = await t.request('POST', `/environment/${env.id}/job`, { token: org.token, body: bodies(tokenId).job });
    const open = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: bodies(null).application });
    for (const [id, expected] of [[app.body.id, { token: SECRET, username: 'oauth2' }], [job.body.id, { token: SECRET, username: 'oauth2' }], [open.body.id, { token: null, username: null }]] as const) {
      const plan = await buildRuntimePlan(t.ctx, id);
      assert.ok(plan.source?.kind === 'git' && plan.source.git, JSON.stringify(plan.source));
      assert.deepEqual({ token: plan.source.git.token, username: plan.source.git.username }, expected);
      assert.equal(plan.source.git.url, 'https://gitlab.com/acme/private.git');
    }
    for (const id of [app.body.id, job.body.id]) {
      const kind = id === app.body.id ? 'application' : 'job';
      const read = await t.request('GET', `/${kind}/${id}`, { token: org.token });
      assert.equal(read.status, 200);
      assert.equal(read.raw.includes(SECRET), false);
      assert.equal(read.body.git_repository?.git_token_id ?? read.body.source.docker.git_repository.git_token_id, tokenId);
    }
  });

  test('a token gone since the service was saved (a delete racing the save): the plan fails naming it, before anything is cloned', async () => {
    const gone = await t.request('POST', `/organization/${org.id}/gitToken`, { token: org.token, body: { name: 'short-lived', type: 'GITHUB', token: 'ghp-gone' } });
    const app = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: bodies(gone.body.id).application });
    assert.equal(app.status, 201, app.raw);
    await t.ctx.db.query('delete from git_tokens where id = $1', [gone.body.id]);
    await assert.rejects(buildRuntimePlan(t.ctx, app.body.id), new RegExp(`git token ${gone.body.id} no longer exists in this organization`));
  });
});
