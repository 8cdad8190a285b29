// Unit tests of the pure variable rules: keys, mount paths, where aliases and overrides may go,
// and the effective resolution (precedence, overrides, aliases, built-ins, secret-ness).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { derivationProblem, keyProblem, mountPathProblem, OVERRIDE_SCOPE_MESSAGE, ALIAS_SCOPE_MESSAGE } from './variables.rules.ts';
import { builtInVariables, firstPort, resolveEffective, shortId, type StoredVariable } from './effective.rules.ts';

describe('variable rules', () => {
  test('keys: letters, digits, underscore, starting with a letter, ≤ 255, no reserved prefix', () => {
    for (const ok of ['A', 'a', 'DATABASE_URL', 'x1_y2', 'Qovery', 'BERTHA', 'A'.repeat(255)]) assert.equal(keyProblem(ok), null, ok);
    assert.match(keyProblem('')!, /empty/);
    assert.match(keyProblem('1A')!, /start with a letter/);
    assert.match(keyProblem('_A')!, /start with a letter/);
    assert.match(keyProblem('A-B')!, /letters, digits and underscores/);
    assert.match(keyProblem('A B')!, /letters, digits and underscores/);
    assert.match(keyProblem('A'.repeat(256))!, /at most 255/);
    assert.match(keyProblem('QOVERY_X')!, /reserved/);
    assert.match(keyProblem('BERTH_X')!, /reserved/);
    assert.match(keyProblem('qovery_x')!, /reserved/);
  });

  test('mount paths: absolute, no empty, . or .. segments', () => {
    for (const ok of ['/a', '/etc/app/config.yaml', '/a b/c']) assert.equal(mountPathProblem(ok), null, ok);
    assert.match(mountPathProblem('etc/x')!, /absolute/);
    assert.match(mountPathProblem('')!, /absolute/);
    assert.match(mountPathProblem('/')!, /empty segments/);
    assert.match(mountPathProblem('/a//b')!, /empty segments/);
    assert.match(mountPathProblem('/a/')!, /trailing/);
    assert.match(mountPathProblem('/a/../b')!, /\.\./);
    assert.match(mountPathProblem('/a/\u0000')!, /control/);
  });

  test('aliases: same owner or an ancestor; overrides: a strict ancestor; never of an alias', () => {
    const chain = ['p', 'e', 's'];
    assert.equal(derivationProblem('ALIAS', 'VALUE', 's', chain), null);
    assert.equal(derivationProblem('ALIAS', 'VALUE', 'p', chain), null);
    assert.equal(derivationProblem('OVERRIDE', 'VALUE', 'e', chain), null);
    assert.equal(derivationProblem('OVERRIDE', 'OVERRIDE', 'p', chain), null);
    assert.equal(derivationProblem('OVERRIDE', 'VALUE', 's', chain), OVERRIDE_SCOPE_MESSAGE);
    assert.equal(derivationProblem('ALIAS', 'VALUE', 'other-service', chain), ALIAS_SCOPE_MESSAGE);
    assert.equal(derivationProblem('OVERRIDE', 'VALUE', 'other-service', ['p', 'e']), OVERRIDE_SCOPE_MESSAGE);
    assert.match(derivationProblem('ALIAS', 'ALIAS', 'p', chain)!, /alias of an alias/);
    assert.match(derivationProblem('OVERRIDE', 'ALIAS', 'p', chain)!, /override an alias/);
  });
});

const v = (o: Partial<StoredVariable> & Pick<StoredVariable, 'id' | 'key' | 'depth'>): StoredVariable => ({
  scope: o.depth === 1 ? 'PROJECT' : o.depth === 2 ? 'ENVIRONMENT' : 'APPLICATION', variable_type: 'VALUE', is_secret: false,
  value: null, mount_path: null, target_id: null, ...o,
});

describe('effective resolution', () => {
  test('the narrowest scope wins per key; overrides replace; aliases follow the effective value of their target key', () => {
    const out = resolveEffective([
      v({ id: 'p1', key: 'DB', depth: 1, value: 'project' }),
      v({ id: 'e1', key: 'DB', depth: 2, value: 'env', variable_type: 'OVERRIDE', target_id: 'p1' }),
      v({ id: 's1', key: 'DATABASE', depth: 3, variable_type: 'ALIAS', target_id: 'p1' }),
      v({ id: 'p2', key: 'MODE', depth: 1, value: 'p' }),
      v({ id: 's2', key: 'MODE', depth: 3, value: 's' }),
    ], [{ key: 'BERTH_SERVICE_ID', value: 'sid' }]);
    const map = Object.fromEntries(out.map((x) => [x.key, x]));
    assert.equal(map.DB!.value, 'env');
    assert.equal(map.DB!.variable_type, 'OVERRIDE');
    assert.equal(map.DATABASE!.value, 'env');
    assert.equal(map.MODE!.value, 's');
    assert.equal(map.MODE!.scope, 'APPLICATION');
    assert.equal(map.BERTH_SERVICE_ID!.scope, 'BUILT_IN');
    assert.deepEqual(out.map((x) => x.key), ['BERTH_SERVICE_ID', 'DATABASE', 'DB', 'MODE']);
  });

  test('an alias is secret when what it resolves to is secret', () => {
    const out = resolveEffective([
      v({ id: 'p1', key: 'TOKEN', depth: 1, value: 'plain' }),
      v({ id: 's0', key: 'TOKEN', depth: 3, value: 'hidden', is_secret: true }),
      v({ id: 's1', key: 'ALIASED', depth: 3, variable_type: 'ALIAS', target_id: 'p1' }),
    ], []);
    const aliased = out.find((x) => x.key === 'ALIASED')!;
    assert.equal(aliased.is_secret, true);
    assert.equal(aliased.value, 'hidden');
  });

  test('built-ins: own facts, host from slug and environment id, first port; Qovery-style names for every service', () => {
    const self = { id: 'aaaaaaaa-1111-4111-8111-111111111111', name: 'Web', slug: 'web', type: 'APPLICATION', environmentId: 'eeeeeeee-2222-4222-8222-222222222222', projectId: 'p', spec: { ports: [{ internal_port: 8080 }] } };
    const db = { ...self, id: 'bbbbbbbb-3333-4333-8333-333333333333', name: 'DB', slug: 'db', type: 'DATABASE', spec: { port: 5432 } };
    const map = Object.fromEntries(builtInVariables(self, [self, db]).map((x) => [x.key, x.value]));
    assert.equal(map.BERTH_SERVICE_HOST, 'web.eeeeeeee.svc');
    assert.equal(map.BERTH_SERVICE_PORT, '8080');
    assert.equal(map.BERTH_SERVICE_NAME, 'Web');
    assert.equal(map[`QOVERY_DATABASE_${shortId(db.id)}_HOST_INTERNAL`], 'db.eeeeeeee.svc');
    assert.equal(map.QOVERY_DATABASE_ZBBBBBBBB_PORT, '5432');
    assert.equal(firstPort({}), null);
  });
});
