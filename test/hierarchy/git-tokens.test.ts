// Git tokens over HTTP: the public API's shapes (create, list, get, edit, delete, associated
// services), the token write-only (never in a response, sealed in the table), validation 400s,
// 401/403/404, names unique per organization (409), a token in use refused at delete (409 naming
// the services: an application, a git job, an agentic workflow), the audit log, and the official
// SDK (qovery-typescript-axios) creating, listing and reading one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Configuration, OrganizationMainCallsApi } from 'qovery-typescript-axios';
import { hierarchyExamples } from '../../src/http/examples/hierarchy.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { eventually, expectErrorBody, listenOnLoopback, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

const UNKNOWN = '00000000-0000-4000-8000-00000000dead';
const SDK_MEMBERS = ['id', 'created_at', 'updated_at', 'name', 'description', 'type', 'expired_at', 'associated_services_count', 'git_api_url'];

describe('git tokens', () => {
  let t: TestApp;
  before(async () => { t = await startTestApp(); });
  after(async () => { await t.close(); });

  const path = (org: SeededOrganization, rest = '') => `/organization/${org.id}/gitToken${rest}`;
  const create = async (org: SeededOrganization, body: Record<string, unknown> = {}) => {
    const r = await t.request('POST', path(org), { token: org.token, body: { ...hierarchyExamples.createGitToken, name: `gt-${randomUUID().slice(0, 8)}`, ...body } });
    assert.equal(r.status, 201, r.raw);
    return r.body as { id: string; name: string };
  };

  test('create: 201 with the public shape, the token never echoed and sealed at rest; get and list (VIEWER) do not show it', async () => {
    const org = await seedOrganization(t);
    const example = hierarchyExamples.createGitToken;
    const r = await t.request('POST', path(org), { token: org.token, body: example });
    assert.equal(r.status, 201, r.raw);
    assert.equal(r.headers.location, `/organization/${org.id}/gitToken/${r.body.id}`);
    assert.deepEqual(Object.keys(r.body).sort(), [...SDK_MEMBERS].sort());
    assert.deepEqual({ ...r.body, id: undefined, created_at: undefined, updated_at: undefined }, {
      id: undefined, created_at: undefined, updated_at: undefined, name: example.name, description: example.description, type: 'GITHUB',
      expired_at: '2027-06-30T00:00:00.000Z', associated_services_count: 0, git_api_url: '',
    });
    assert.equal(r.raw.includes(example.token), false);
    const viewer = await org.tokenFor('VIEWER');
    for (const url of [path(org, `/${r.body.id}`), path(org)]) {
      const read = await t.request('GET', url, { token: viewer });
      assert.equal(read.status, 200, read.raw);
      assert.equal(read.raw.includes(example.token), false);
    }
    const list = await t.request('GET', path(org), { token: viewer });
    assert.deepEqual(list.body.results.map((x: { id: string }) => x.id), [r.body.id]);
    assert.equal(list.body.pagination.total_count, 1);
    const rows = await t.ctx.db.query<{ token_sealed: string }>('select token_sealed from git_tokens where id = $1', [r.body.id]);
    assert.equal(rows[0]!.token_sealed.includes(example.token), false);
    assert.equal(t.ctx.sealer.open(rows[0]!.token_sealed), example.token);
  });

  test('edit: without token keeps the stored one, with token replaces it; omitted optional members keep their value', async () => {
    const org = await seedOrganization(t);
    const made = await create(org, { type: 'BITBUCKET', workspace: 'acme-team', token: 'first-token-7a1c', git_api_url: 'https://bitbucket.example.com' });
    const sealed = async () => t.ctx.sealer.open((await t.ctx.db.query<{ token_sealed: string }>('select token_sealed from git_tokens where id = $1', [made.id]))[0]!.token_sealed);
    const kept = await t.request('PUT', path(org, `/${made.id}`), { token: org.token, body: { name: 'renamed', type: 'BITBUCKET' } });
    assert.equal(kept.status, 200, kept.raw);
    assert.equal(kept.body.name, 'renamed');
    assert.equal(kept.body.workspace, 'acme-team');
    assert.equal(kept.body.git_api_url, 'https://bitbucket.example.com');
    assert.equal(kept.body.description, hierarchyExamples.createGitToken.description);
    assert.equal(kept.body.expired_at, '2027-06-30T00:00:00.000Z');
    assert.ok(kept.body.updated_at);
    assert.equal(await sealed(), 'first-token-7a1c');
    const example = hierarchyExamples.editGitToken;
    const changed = await t.request('PUT', path(org, `/${made.id}`), { token: org.token, body: { ...example, description: null, expired_at: null } });
    assert.equal(changed.status, 200, changed.raw);
    assert.equal(changed.raw.includes(example.token), false);
    assert.equal(changed.body.type, 'GITHUB');
    assert.equal(changed.body.description, '');
    assert.equal('expired_at' in changed.body, false);
    assert.equal(changed.body.workspace, 'acme-team');
    assert.equal(await sealed(), example.token);
  });

  test('validation: bad bodies are 400 with the error body, and nothing is stored', async () => {
    const org = await seedOrganization(t);
    const post = (body: object) => t.request('POST', path(org), { token: org.token, body });
    const ok = { name: 'x', type: 'GITHUB', token: 'tok' };
    for (const [body, message] of [
      [{ type: 'GITHUB', token: 'tok' }, /name is required/],
      [{ name: 'x', token: 'tok' }, /type is required/],
      [{ name: 'x', type: 'GITHUB' }, /token is required/],
      [{ ...ok, type: 'SVN' }, /^type/],
      [{ ...ok, name: '   ' }, /^name/],
      [{ ...ok, token: '' }, /^token/],
      [{ ...ok, token: 'two words' }, /token must be printable ASCII/],
      [{ ...ok, token: 'line\nbreak' }, /token must be printable ASCII/],
      [{ ...ok, token: 42 }, /^token/],
      [{ ...ok, type: 'BITBUCKET' }, /workspace is required for a BITBUCKET/],
      [{ ...ok, git_api_url: 'not a url' }, /git_api_url .* is not a URL/],
      [{ ...ok, git_api_url: 'ftp://example.com' }, /git_api_url must be an http/],
      [{ ...ok, expired_at: 'tomorrow' }, /^expired_at/],
      [{ ...ok, expired_at: '0001-01-01T00:00:00Z' }, /expired_at .* between 1970 and 9999/],
    ] as const) {
      assert.match(expectErrorBody(await post(body), 400).message, message, JSON.stringify(body));
    }
    const made = await create(org);
    assert.match(expectErrorBody(await t.request('PUT', path(org, `/${made.id}`), { token: org.token, body: { type: 'GITHUB' } }), 400).message, /name is required/);
    assert.match(expectErrorBody(await t.request('PUT', path(org, `/${made.id}`), { token: org.token, body: { name: 'n', type: 'GITHUB', token: 'a b' } }), 400).message, /printable/);
    const count = await t.ctx.db.query<{ n: number }>('select count(*)::int as n from git_tokens where organization_id = $1', [org.id]);
    assert.equal(count[0]!.n, 1);
  });

  test('names unique per organization in any letter case (409); another organization may reuse one', async () => {
    const org = await seedOrganization(t);
    await create(org, { name: 'GitHub CI' });
    const clash = await t.request('POST', path(org), { token: org.token, body: { name: 'github ci', type: 'GITLAB', token: 't' } });
    assert.equal(expectErrorBody(clash, 409).message, 'Git token name is already taken in this organization');
    await create(await seedOrganization(t), { name: 'GitHub CI' });
  });

  test('permissions: 401 without a token, VIEWER/DEVOPS writes 403, another organization 403, unknown 404', async () => {
    const org = await seedOrganization(t);
    const other = await seedOrganization(t);
    const made = await create(org);
    const theirs = await create(other);
    const body = { name: 'p', type: 'GITHUB', token: 't' };
    expectErrorBody(await t.request('GET', path(org)), 401);
    expectErrorBody(await t.request('POST', path(org), { body }), 401);
    for (const role of ['VIEWER', 'DEVOPS'] as const) {
      const token = await org.tokenFor(role);
      expectErrorBody(await t.request('POST', path(org), { token, body }), 403);
      expectErrorBody(await t.request('PUT', path(org, `/${made.id}`), { token, body }), 403);
      expectErrorBody(await t.request('DELETE', path(org, `/${made.id}`), { token }), 403);
    }
    assert.equal((await t.request('GET', path(org, `/${made.id}/associatedServices`), { token: await org.tokenFor('VIEWER') })).status, 200);
    expectErrorBody(await t.request('GET', path(org), { token: other.token }), 403);
    expectErrorBody(await t.request('GET', path(org, `/${made.id}`), { token: other.token }), 403);
    expectErrorBody(await t.request('GET', `/organization/${UNKNOWN}/gitToken`, { token: org.token }), 404);
    for (const [method, rest] of [['GET', `/${UNKNOWN}`], ['PUT', `/${UNKNOWN}`], ['DELETE', `/${UNKNOWN}`], ['GET', `/${UNKNOWN}/associatedServices`],
      ['GET', `/${theirs.id}`], ['DELETE', `/${theirs.id}`]] as const) {
      assert.equal(expectErrorBody(await t.request(method, path(org, rest), { token: org.token, ...(method === 'PUT' ? { body } : {}) }), 404).message, 'Git token not found');
    }
    expectErrorBody(await t.request('GET', path(org, '/not-a-uuid'), { token: org.token }), 400);
  });

  describe('in use by services', () => {
    let org: SeededOrganization;
    let env: SeededEnvironment;
    let envName: string;
    let projectName: string;
    const repo = (gitTokenId: string | null) => ({ url: 'https://github.com/acme/private.git', branch: 'main', git_token_id: gitTokenId });
    before(async () => {
      org = await seedOrganization(t);
      env = await seedEnvironment(t, org);
      envName = env.name;
      projectName = (await t.ctx.db.query<{ name: string }>('select name from projects where id = $1', [env.projectId]))[0]!.name;
    });

    test('associated services and their count cover applications, git jobs and workflows; delete is 409 naming them until none uses it', async () => {
      const token = await create(org);
      const unused = await create(org);
      const post = async (kind: string, body: object) => {
        const r = await t.request('POST', `/environment/${env.id}/${kind}`, { token: org.token, body });
        assert.equal(r.status, 201, r.raw);
        return r.body.id as string;
      };
      const app = await post('application', { name: 'web', git_repository: repo(token.id.toUpperCase()), ports: [] });
      await post('application', { name: 'public-site', git_repository: repo(null) });
      const job = await post('job', { name: 'nightly', source: { docker: { git_repository: repo(token.id) } }, schedule: { cronjob: { scheduled_at: '0 3 * * *' } } });
      const lifecycle = await post('job', { name: 'migrate', source: { docker: { git_repository: repo(token.id) } }, schedule: { on_start: {} } });
      const workflow = await post('agenticWorkflow', {
        name: 'triage', project_repositories: [repo(token.id), { ...repo(token.id), url: 'https://github.com/acme/other.git' }, repo(unused.id)],
      });

      const got = await t.request('GET', path(org, `/${token.id}`), { token: org.token });
      assert.equal(got.body.associated_services_count, 4);
      const listed = await t.request('GET', path(org), { token: org.token });
      assert.deepEqual(listed.body.results.map((x: { id: string; associated_services_count: number }) => [x.id, x.associated_services_count]),
        [[token.id, 4], [unused.id, 1]]);
      const associated = await t.request('GET', path(org, `/${token.id}/associatedServices`), { token: await org.tokenFor('VIEWER') });
      assert.equal(associated.status, 200, associated.raw);
      const place = { project_id: env.projectId, project_name: projectName, environment_id: env.id, environment_name: envName };
      assert.deepEqual(associated.body.results, [
        { ...place, service_id: lifecycle, service_name: 'migrate', service_type: 'LIFECYCLE' },
        { ...place, service_id: job, service_name: 'nightly', service_type: 'CRON' },
        { ...place, service_id: workflow, service_name: 'triage', service_type: 'AGENTIC_WORKFLOW' },
        { ...place, service_id: app, service_name: 'web', service_type: 'APPLICATION' },
      ]);
      assert.equal(associated.body.pagination.total_count, 4);
      const paged = await t.request('GET', path(org, `/${token.id}/associatedServices?page=2&page_size=3`), { token: org.token });
      assert.deepEqual(paged.body.results.map((x: { service_name: string }) => x.service_name), ['web']);

      const refused = expectErrorBody(await t.request('DELETE', path(org, `/${token.id}`), { token: org.token }), 409);
      assert.equal(refused.code, 'git_token_in_use');
      assert.equal(refused.message, `Git token '${token.name}' is used by 4 services: 'migrate' (LIFECYCLE in ${projectName}/${envName}), `
        + `'nightly' (CRON in ${projectName}/${envName}), 'triage' (AGENTIC_WORKFLOW in ${projectName}/${envName}), `
        + `'web' (APPLICATION in ${projectName}/${envName}); give them another token (or none) first`);

      // each service let go of the token: then it can be deleted
      const put = async (url: string, body: object) => {
        const r = await t.request('PUT', url, { token: org.token, body });
        assert.equal(r.status, 200, r.raw);
      };
      await put(`/application/${app}`, { git_repository: repo(null) });
      await put(`/job/${job}`, { source: { docker: { git_repository: repo(unused.id) } } });
      await t.request('DELETE', `/job/${lifecycle}`, { token: org.token });
      assert.match(expectErrorBody(await t.request('DELETE', path(org, `/${token.id}`), { token: org.token }), 409).message, /used by 1 service: 'triage'/);
      await put(`/agenticWorkflow/${workflow}`, { name: 'triage', project_repositories: [repo(unused.id)] });
      assert.equal((await t.request('GET', path(org, `/${token.id}`), { token: org.token })).body.associated_services_count, 0);
      assert.equal((await t.request('DELETE', path(org, `/${token.id}`), { token: org.token })).status, 204);
      expectErrorBody(await t.request('GET', path(org, `/${token.id}`), { token: org.token }), 404);
      assert.equal((await t.request('GET', path(org, `/${unused.id}`), { token: org.token })).body.associated_services_count, 2);
    });

    test('the audit log records creations, edits and deletions as GIT_TOKEN changes of the organization, without the token', async () => {
      const made = await create(org, { token: 'audit-secret-token-91c' });
      await t.request('PUT', path(org, `/${made.id}`), { token: org.token, body: { name: made.name, type: 'GITLAB', token: 'audit-secret-token-92d' } });
      await t.request('DELETE', path(org, `/${made.id}`), { token: org.token });
      const events = await eventually(async () => {
        const r = await t.request('GET', `/organization/${org.id}/events?subTargetType=GIT_TOKEN`, { token: org.token });
        return r.body.events?.length >= 3 ? r : null;
      });
      const mine = events.body.events.slice(0, 3).map((e: { event_type: string; target_type: string; sub_target_type: string }) => [e.event_type, e.target_type, e.sub_target_type]);
      assert.deepEqual(mine, [['DELETE', 'ORGANIZATION', 'GIT_TOKEN'], ['UPDATE', 'ORGANIZATION', 'GIT_TOKEN'], ['CREATE', 'ORGANIZATION', 'GIT_TOKEN']]);
      assert.doesNotMatch(events.raw, /audit-secret-token/);
    });
  });

  test('the official SDK creates, lists, reads, edits and deletes a git token, and lists its associated services', async () => {
    const base = await listenOnLoopback(t);
    const org = await seedOrganization(t);
    const api = new OrganizationMainCallsApi(new Configuration({ basePath: base, apiKey: `Token ${org.token}` }));
    const created = await api.createGitToken(org.id, { name: 'sdk token', type: 'GITLAB', token: 'glpat-sdk-token-3f9a', git_api_url: 'https://gitlab.example.com' });
    assert.equal(created.status, 201);
    assert.equal(created.data.name, 'sdk token');
    assert.equal(created.data.type, 'GITLAB');
    assert.equal(created.data.associated_services_count, 0);
    assert.equal(created.data.git_api_url, 'https://gitlab.example.com');
    assert.equal(JSON.stringify(created.data).includes('glpat-sdk-token-3f9a'), false);
    const list = await api.listOrganizationGitTokens(org.id);
    assert.deepEqual(list.data.results?.map((x) => [x.id, x.name, x.type]), [[created.data.id, 'sdk token', 'GITLAB']]);
    assert.equal((await api.getOrganizationGitToken(org.id, created.data.id)).data.id, created.data.id);
    const edited = await api.editGitToken(org.id, created.data.id, { name: 'sdk token 2', type: 'GITLAB', token: 'glpat-rotated-4e0b' });
    assert.equal(edited.data.name, 'sdk token 2');
    assert.deepEqual((await api.getGitTokenAssociatedServices(org.id, created.data.id)).data.results, []);
    assert.equal((await api.deleteGitToken(org.id, created.data.id)).status, 204);
  });
});
