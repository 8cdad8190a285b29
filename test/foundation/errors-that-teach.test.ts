// Errors that teach, through the HTTP API: every validation problem at once (`errors`, the first
// in `message`), enum errors naming the allowed values and what was sent, and the members
// dropped as unknown named in X-Berth-Ignored-Fields.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

describe('errors that teach', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(() => t.close());

  test('several problems answer together, the first one in message', async () => {
    const r = await t.request('POST', `/project/${env.projectId}/environment`, { token: org.token, body: { mode: 'PRODUCTON', auto_preview: 'yes' } });
    const body = expectErrorBody(r, 400) as ReturnType<typeof expectErrorBody> & { errors: Array<{ field: string; message: string }> };
    assert.equal(body.code, 'validation_error');
    assert.deepEqual(body.errors.map((e) => e.field).sort(), ['auto_preview', 'mode', 'name']);
    assert.equal(body.message, body.errors[0]!.message);
    assert.ok(body.errors.some((e) => e.message === 'mode must be one of DEVELOPMENT, STAGING, PRODUCTION; got "PRODUCTON"'), JSON.stringify(body.errors));
    assert.ok(body.errors.some((e) => e.message === 'auto_preview must be boolean; got "yes"'));
  });

  test('errors from the service layer keep the plain body (no errors list)', async () => {
    const r = await t.request('GET', '/environment/00000000-0000-4000-8000-000000000000', { token: org.token });
    assert.equal(expectErrorBody(r, 404) && 'errors' in r.body, false);
  });

  test('unknown members are ignored but named in X-Berth-Ignored-Fields', async () => {
    const r = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: {
      name: 'typo-app', colour: 'blue', git_repository: { url: 'https://github.com/acme/a', brnch: 'dev' },
      ports: [{ internal_port: 80, publicly_accessible: false, exposed: true }],
    } });
    assert.equal(r.status, 201, r.raw);
    assert.equal(r.headers['x-berth-ignored-fields'], 'colour, git_repository.brnch, ports[0].exposed');
    assert.equal(r.body.git_repository.branch, 'main', 'the typo did not set the branch');
    const clean = await t.request('PUT', `/application/${r.body.id}`, { token: org.token, body: { description: 'fine' } });
    assert.equal(clean.status, 200);
    assert.equal(clean.headers['x-berth-ignored-fields'], undefined);
  });

  test('unusual member names are escaped in the header, long lists are cut', async () => {
    const body: Record<string, unknown> = { name: `many-${Date.now()}`, 'weird key,é': 1 };
    for (let i = 0; i < 25; i++) body[`extra${i}`] = i;
    const r = await t.request('POST', `/organization/${org.id}/project`, { token: org.token, body });
    assert.equal(r.status, 201, r.raw);
    const header = String(r.headers['x-berth-ignored-fields']);
    assert.match(header, /^weird%20key%2C%C3%A9, extra0, /);
    assert.match(header, /\(\+6 more\)$/);
  });
});
