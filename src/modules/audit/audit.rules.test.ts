// The audit classification of routes: event type, target type, sub-target and target source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classify } from './audit.rules.ts';

const brief = (m: string, url: string) => {
  const c = classify(m, url);
  return c && [c.eventType, c.targetType, c.subTargetType, JSON.stringify(c.target)];
};

test('creates name the created resource and its parent', () => {
  assert.deepEqual(brief('POST', '/organization'), ['CREATE', 'ORGANIZATION', null, '{"created":true,"parentType":null,"parentParam":null}']);
  assert.deepEqual(brief('POST', '/organization/:organizationId/project'), ['CREATE', 'PROJECT', null, '{"created":true,"parentType":"ORGANIZATION","parentParam":"organizationId"}']);
  assert.deepEqual(brief('POST', '/environment/:environmentId/application'), ['CREATE', 'APPLICATION', null, '{"created":true,"parentType":"ENVIRONMENT","parentParam":"environmentId"}']);
  assert.deepEqual(brief('POST', '/api/v1/project/:projectId/environment'), ['CREATE', 'ENVIRONMENT', null, '{"created":true,"parentType":"PROJECT","parentParam":"projectId"}']);
});

test('edits, deletions and actions name the resource of the path', () => {
  assert.deepEqual(brief('PUT', '/application/:applicationId'), ['UPDATE', 'APPLICATION', null, '{"param":"applicationId"}']);
  assert.deepEqual(brief('DELETE', '/organization/:organizationId/cluster/:clusterId'), ['DELETE', 'CLUSTER', null, '{"param":"clusterId"}']);
  assert.deepEqual(brief('POST', '/database/:databaseId/deploy'), ['TRIGGER_DEPLOY', 'DATABASE', null, '{"param":"databaseId"}']);
  assert.deepEqual(brief('POST', '/environment/:environmentId/clone'), ['CLONE', 'ENVIRONMENT', null, '{"param":"environmentId"}']);
  assert.deepEqual(brief('POST', '/application/:applicationId/restart-service'), ['TRIGGER_RESTART', 'APPLICATION', null, '{"param":"applicationId"}']);
});

test('sub-targets stay on their parent', () => {
  assert.deepEqual(brief('POST', '/application/:applicationId/environmentVariable'), ['CREATE', 'APPLICATION', 'VARIABLE', '{"param":"applicationId"}']);
  assert.deepEqual(brief('POST', '/project/:projectId/secret/:secretId/alias'), ['CREATE', 'PROJECT', 'SECRET', '{"param":"projectId"}']);
  assert.deepEqual(brief('PUT', '/organization/:organizationId/cluster/:clusterId/advancedSettings'), ['UPDATE', 'CLUSTER', 'ADVANCED_SETTINGS', '{"param":"clusterId"}']);
  assert.deepEqual(brief('POST', '/organization/:organizationId/apiToken'), ['CREATE', 'ORGANIZATION', 'API_TOKEN', '{"param":"organizationId"}']);
  assert.deepEqual(brief('DELETE', '/organization/:organizationId/gitToken/:gitTokenId'), ['DELETE', 'ORGANIZATION', 'GIT_TOKEN', '{"param":"organizationId"}']);
  assert.deepEqual(brief('POST', '/organization/:organizationId/inviteMember/:inviteId'), ['ACCEPT', 'MEMBERS_AND_ROLES', 'INVITATION', '{"param":"organizationId"}']);
  assert.deepEqual(brief('PUT', '/project/:projectId/deploymentRule/order'), ['UPDATE', 'PROJECT', 'DEPLOYMENT_RULE', '{"param":"projectId"}']);
  assert.deepEqual(brief('POST', '/environment/:environmentId/preview/:previewId/approve'), ['ACCEPT', 'ENVIRONMENT', 'PREVIEW', '{"param":"environmentId"}']);
});

test('resources outside the hierarchy are looked up; reads, pings and public hooks are not audited', () => {
  assert.deepEqual(brief('PUT', '/variable/:variableId'), ['UPDATE', 'ORGANIZATION', 'VARIABLE', '{"lookup":"variable","param":"variableId"}']);
  assert.deepEqual(brief('POST', '/variable'), ['CREATE', 'ORGANIZATION', 'VARIABLE', '{"lookup":"variable","param":null}']);
  assert.deepEqual(brief('DELETE', '/llmProvider/:llmProviderId'), ['DELETE', 'ORGANIZATION', 'CONFIG', '{"lookup":"llmProvider","param":"llmProviderId"}']);
  assert.deepEqual(brief('POST', '/deployment/:deploymentId/cancel'), ['TRIGGER_CANCEL', 'ENVIRONMENT', null, '{"lookup":"deployment","param":"deploymentId"}']);
  assert.equal(brief('GET', '/application/:applicationId'), null);
  assert.equal(brief('POST', '/organization/:organizationId/webhook/:webhookId/test'), null);
  assert.equal(brief('POST', '/agenticWorkflow/:agenticWorkflowId/hook/:secret'), null);
});
