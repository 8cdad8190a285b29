// Unit tests of the environment rules: the cluster field, re-sealing for clones, and the 409 of
// an environment being deleted.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createSealer } from '../../lib/crypto.ts';
import type { AppError } from '../../lib/errors.ts';
import { refuseWhileDeleting, requestedCluster, resealSecrets } from './environments.rules.ts';

describe('environment rules', () => {
  test('cluster_id or cluster; both must agree', () => {
    const id = '4b0a7c5e-0000-4000-8000-000000000001';
    assert.deepEqual(requestedCluster({ cluster_id: id }), { id, field: 'cluster_id' });
    assert.deepEqual(requestedCluster({ cluster: id }), { id, field: 'cluster' });
    assert.deepEqual(requestedCluster({ cluster: id, cluster_id: id.toUpperCase() }), { id: id.toUpperCase(), field: 'cluster_id' });
    assert.equal(requestedCluster({ cluster: id, cluster_id: '4b0a7c5e-0000-4000-8000-000000000002' }), 'conflict');
    assert.equal(requestedCluster({}), null);
  });

  test('sealed strings are re-sealed (new ciphertext, same plaintext), others copied', () => {
    const sealer = createSealer(randomBytes(32));
    const source = { api_key: sealer.seal('k1'), nested: { list: [sealer.seal('k2'), 'plain'] }, n: 3 };
    const copy = resealSecrets(source, sealer) as typeof source;
    assert.notEqual(copy.api_key, source.api_key);
    assert.equal(sealer.open(copy.api_key), 'k1');
    assert.equal(sealer.open(copy.nested.list[0]!), 'k2');
    assert.equal(copy.nested.list[1], 'plain');
    assert.equal(copy.n, 3);
  });
});

test('an environment being deleted takes no change: one 409 with one message', () => {
  assert.doesNotThrow(() => refuseWhileDeleting({ deleting: false }));
  assert.throws(() => refuseWhileDeleting({ deleting: true }), (err: AppError) => err.status === 409 && /being deleted/.test(err.message));
});
