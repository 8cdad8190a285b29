// Unit test of how a settled deployment's status becomes the run's status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runStatusOf } from './runs.lifecycle.ts';

test('DEPLOYED → SUCCEEDED, CANCELED → CANCELED, every error → FAILED', () => {
  assert.equal(runStatusOf('DEPLOYED'), 'SUCCEEDED');
  assert.equal(runStatusOf('CANCELED'), 'CANCELED');
  for (const s of ['BUILD_ERROR', 'DEPLOYMENT_ERROR', 'DELETE_ERROR']) assert.equal(runStatusOf(s), 'FAILED');
});
