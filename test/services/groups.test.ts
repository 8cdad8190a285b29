// Organization annotations and labels groups: CRUD (members read, ADMINs manage), validation,
// names unique per organization, services referencing them (shown in full, unknown ids 400),
// and a group in use cannot be deleted (409).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { hierarchyExamples } from '../../src/http/examples/hierarchy.ts';

describe('annotations and labels groups', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(async () => t.close());

  // the reference's examples
  const annotations = hierarchyExamples.createOrganizationAnnotationsGroup;
  const labels = hierarchyExamples.createOrganizationLabelsGroup;

  test('CRUD of an annotations group; ADMIN manages, VIEWER reads, DEVOPS may not write', async () => {
    const r = await t.request('POST', `/organization/${org.id}/annotationsGroup`, { token: await org.tokenFor('ADMIN'), body: annotations });
    assert.equal(r.status, 201, r.raw);
    assert.deepEqual([r.body.name, r.body.annotations, r.body.scopes], [annotations.name, annotations.annotations, annotations.scopes]);
    const viewer = await org.tokenFor('VIEWER');
    assert.deepEqual((await t.request('GET', `/organization/${org.id}/annotationsGroup/${r.body.id}`, { token: viewer })).body, r.body);
    const list = await t.request('GET', `/organization/${org.id}/annotationsGroup`, { token: viewer });
    assert.deepEqual(list.body.results.map((g: { id: string }) => g.id), [r.body.id]);
    expectErrorBody(await t.request('POST', `/organization/${org.id}/annotationsGroup`, { token: await org.tokenFor('DEVOPS'), body: { ...annotations, name: 'x' } }), 403);
    const edit = hierarchyExamples.editOrganizationAnnotationsGroup;
    const edited = await t.request('PUT', `/organization/${org.id}/annotationsGroup/${r.body.id}`, { token: org.token, body: edit });
    assert.equal(edited.status, 200, edited.raw);
    assert.deepEqual(edited.body.scopes, edit.scopes);
    assert.equal((await t.request('DELETE', `/organization/${org.id}/annotationsGroup/${r.body.id}`, { token: org.token })).status, 204);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/annotationsGroup/${r.body.id}`, { token: org.token }), 404);
    const stranger = await seedOrganization(t);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/annotationsGroup`, { token: stranger.token }), 403);
  });

  test('a labels group is edited whole (PUT), propagate_to_cloud_provider defaulting to false', async () => {
    const r = await t.request('POST', `/organization/${org.id}/labelsGroup`, { token: org.token, body: { ...labels, name: 'edited-labels' } });
    assert.equal(r.status, 201, r.raw);
    const edit = hierarchyExamples.editOrganizationLabelsGroup;
    const edited = await t.request('PUT', `/organization/${org.id}/labelsGroup/${r.body.id}`, { token: org.token, body: edit });
    assert.equal(edited.status, 200, edited.raw);
    assert.equal(edited.body.name, edit.name);
    assert.deepEqual(edited.body.labels, edit.labels.map((l) => ({ propagate_to_cloud_provider: false, ...l })));
    assert.equal((await t.request('DELETE', `/organization/${org.id}/labelsGroup/${r.body.id}`, { token: org.token })).status, 204);
  });

  test('validation and name clashes', async () => {
    const post = (path: string, body: unknown) => t.request('POST', `/organization/${org.id}/${path}`, { token: org.token, body });
    assert.match(expectErrorBody(await post('annotationsGroup', { ...annotations, scopes: ['EVERYTHING'] }), 400).message, /scopes/);
    assert.match(expectErrorBody(await post('annotationsGroup', { ...annotations, scopes: [] }), 400).message, /scopes/);
    assert.match(expectErrorBody(await post('annotationsGroup', { ...annotations, annotations: [{ key: 'bad key', value: 'x' }] }), 400).message, /annotations.0.key/);
    assert.match(expectErrorBody(await post('labelsGroup', { name: 'l', labels: [{ key: 'a', value: 'not valid!' }] }), 400).message, /labels.0.value/);
    assert.equal((await post('labelsGroup', { ...labels, name: 'Unique-Labels' })).status, 201);
    assert.equal(expectErrorBody(await post('labelsGroup', { ...labels, name: 'unique-LABELS' }), 409).message, 'Labels group name is already taken in this organization');
  });

  test('services reference groups by id, get them in full; unknown or foreign ids 400; a used group cannot be deleted', async () => {
    const a = (await t.request('POST', `/organization/${org.id}/annotationsGroup`, { token: org.token, body: { ...annotations, name: 'used-annotations' } })).body;
    const l = (await t.request('POST', `/organization/${org.id}/labelsGroup`, { token: org.token, body: { ...labels, name: 'used-labels' } })).body;
    assert.equal(l.labels[0].propagate_to_cloud_provider, false);
    const app = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: {
      name: 'grouped', git_repository: { url: 'https://github.com/a/b' }, annotations_groups: [{ id: a.id }], labels_groups: [{ id: l.id }],
    } });
    assert.equal(app.status, 201, app.raw);
    assert.deepEqual(app.body.annotations_groups, [a]);
    assert.deepEqual(app.body.labels_groups, [l]);
    const stranger = await seedOrganization(t);
    const foreign = (await t.request('POST', `/organization/${stranger.id}/labelsGroup`, { token: stranger.token, body: labels })).body;
    const job = { name: 'grouped-job', source: { docker: { dockerfile_raw: 'FROM alpine' } }, schedule: { on_start: {} } };
    assert.match(expectErrorBody(await t.request('POST', `/environment/${env.id}/job`, { token: org.token, body: { ...job, labels_groups: [{ id: foreign.id }] } }), 400).message, /labels_groups: unknown labels group/);
    const okJob = await t.request('POST', `/environment/${env.id}/job`, { token: org.token, body: { ...job, annotations_groups: [{ id: a.id }] } });
    assert.equal(okJob.status, 201, okJob.raw);
    assert.equal(okJob.body.annotations_groups[0].name, 'used-annotations');
    const del = await t.request('DELETE', `/organization/${org.id}/annotationsGroup/${a.id}`, { token: org.token });
    assert.match(expectErrorBody(del, 409).message, /Annotations group is used by the service grouped/);
    await t.request('PUT', `/application/${app.body.id}`, { token: org.token, body: { labels_groups: [] } });
    assert.equal((await t.request('DELETE', `/organization/${org.id}/labelsGroup/${l.id}`, { token: org.token })).status, 204);
    const db = await t.request('POST', `/environment/${env.id}/database`, { token: org.token, body: { name: 'grouped-db', type: 'REDIS', version: '7', mode: 'CONTAINER', annotations_groups: [{ id: a.id }, { id: a.id }] } });
    assert.match(expectErrorBody(db, 400).message, /listed twice/);
  });
});
