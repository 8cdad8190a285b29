// Unit tests of the deployment state machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorStatus, runningStatus, serviceIdKey, settledEvent, stepOfStatus, stepsOf } from './deployments.rules.ts';

test('steps per action; a build only for sources built from git', () => {
  assert.deepEqual(stepsOf('DEPLOY', true).map(runningStatus), ['BUILDING', 'DEPLOYING']);
  assert.deepEqual(stepsOf('REDEPLOY', false).map(runningStatus), ['DEPLOYING']);
  assert.deepEqual(stepsOf('STOP', true).map(runningStatus), ['STOPPING']);
  assert.deepEqual(stepsOf('UNINSTALL', false).map(runningStatus), ['DELETING']);
  assert.equal(stepOfStatus('DEPLOYING'), 'APPLY');
  assert.equal(stepOfStatus('QUEUED'), null);
});

test('error statuses and the events of final statuses', () => {
  assert.equal(errorStatus('DEPLOY', 'BUILD'), 'BUILD_ERROR');
  assert.equal(errorStatus('DEPLOY', 'APPLY'), 'DEPLOYMENT_ERROR');
  assert.equal(errorStatus('STOP', 'STOP'), 'STOP_ERROR');
  assert.equal(settledEvent('DEPLOYED'), 'DEPLOYMENT_SUCCEEDED');
  assert.equal(settledEvent('BUILD_ERROR'), 'DEPLOYMENT_FAILED');
  assert.equal(settledEvent('CANCELED'), 'DEPLOYMENT_CANCELLED');
});

test('the service id member is named by type', () => {
  assert.equal(serviceIdKey('APPLICATION'), 'application_id');
  assert.equal(serviceIdKey('JOB'), 'job_id');
  assert.equal(serviceIdKey('AGENTIC_WORKFLOW'), 'agentic_workflow_id');
});
