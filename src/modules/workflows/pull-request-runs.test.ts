// Unit tests of which pull requests a workflow's `pull_requests` trigger takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { internalUrl, triggeredBy } from './pull-request-runs.ts';

const pr = { repository_key: 'github.com/acme/shop', base_branch: 'main' };

test('the trigger takes pull requests of its repository (any spelling of it), into its base branch or any', () => {
  for (const url of ['https://github.com/acme/shop', 'https://github.com/Acme/shop.git', 'git@github.com:acme/shop.git', 'ssh://git@github.com/acme/shop']) {
    assert.equal(triggeredBy({ pull_requests: { repository_url: url, base_branch: null } }, pr), true, url);
  }
  assert.equal(triggeredBy({ pull_requests: { repository_url: 'https://github.com/acme/shop', base_branch: 'main' } }, pr), true);
  assert.equal(triggeredBy({ pull_requests: { repository_url: 'https://github.com/acme/shop', base_branch: 'release' } }, pr), false, 'another base branch');
  assert.equal(triggeredBy({ pull_requests: { repository_url: 'https://github.com/acme/other', base_branch: null } }, pr), false, 'another repository');
  assert.equal(triggeredBy({ pull_requests: { repository_url: 'https://gitlab.com/acme/shop', base_branch: null } }, pr), false, 'another host');
  assert.equal(triggeredBy({ enabled: false, pull_requests: { repository_url: 'https://github.com/acme/shop', base_branch: null } }, pr), false, 'a disabled workflow');
  assert.equal(triggeredBy({ pull_requests: null }, pr), false);
  assert.equal(triggeredBy({}, pr), false, 'a spec stored before the trigger existed');
});

test('a preview service\'s address on its network: its default port, a database\'s port, none without a port', () => {
  assert.equal(internalUrl('web-1a2b', 'APPLICATION', { ports: [{ internal_port: 3000 }, { internal_port: 8080, is_default: true }] }), 'http://web-1a2b:8080');
  assert.equal(internalUrl('api', 'CONTAINER', { ports: [{ internal_port: 80 }] }), 'http://api:80');
  assert.equal(internalUrl('db', 'DATABASE', { port: 5432 }), 'tcp://db:5432');
  assert.equal(internalUrl('worker', 'APPLICATION', { ports: [] }), null);
});
