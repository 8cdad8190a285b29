// The /api/v1 alias is a URL rewrite before routing (src/http/app.ts, docs/decisions/0702).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripApiPrefix } from './app.ts';

test('/api/v1 paths map to the seed paths; anything else is left alone', () => {
  assert.equal(stripApiPrefix('/api/v1/organization/abc?page=2'), '/organization/abc?page=2');
  assert.equal(stripApiPrefix('/api/v1'), '/');
  assert.equal(stripApiPrefix('/api/v1?x=1'), '/?x=1');
  assert.equal(stripApiPrefix('/api/v1/'), '/');
  assert.equal(stripApiPrefix('/api/v10/organization'), '/api/v10/organization');
  assert.equal(stripApiPrefix('/api/v1x'), '/api/v1x');
  assert.equal(stripApiPrefix('/organization'), '/organization');
});
