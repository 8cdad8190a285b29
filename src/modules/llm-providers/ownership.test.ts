// Unit tests of the ORGANIZATION/USER ownership rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal } from '../access/principal.ts';
import { canChange, canSee, createRefusal, isOwner } from './ownership.ts';

const alice: Principal = { kind: 'user', id: 'u-a', sub: 'a', email: null, emailVerified: false, name: 'A', key: 'ka' };
const bob: Principal = { kind: 'user', id: 'u-b', sub: 'b', email: null, emailVerified: false, name: 'B', key: 'kb' };
const token: Principal = { kind: 'token', id: 't', organizationId: 'o', role: 'ADMIN', name: 'tok', key: 'kt' };

test('USER resources are seen and changed by their owner only; ORGANIZATION ones by members / ADMIN', () => {
  const mine = { scope: 'USER' as const, ownerUserId: 'u-a' };
  const shared = { scope: 'ORGANIZATION' as const, ownerUserId: 'u-a' };
  assert.equal(isOwner(alice, mine), true);
  assert.equal(canSee(bob, mine), false);
  assert.equal(canSee(token, mine), false);
  assert.equal(canSee(bob, shared), true);
  assert.equal(canChange(alice, 'DEVOPS', mine), true);
  assert.equal(canChange(alice, 'VIEWER', mine), false);
  assert.equal(canChange(bob, 'OWNER', mine), false);
  assert.equal(canChange(bob, 'DEVOPS', shared), false);
  assert.equal(canChange(bob, 'ADMIN', shared), true);
});

test('creating: tokens cannot own USER resources; DEVOPS for USER, ADMIN for ORGANIZATION', () => {
  assert.equal(createRefusal(token, 'ADMIN', 'USER')?.status, 400);
  assert.equal(createRefusal(alice, 'DEVOPS', 'USER'), null);
  assert.equal(createRefusal(alice, 'VIEWER', 'USER')?.status, 403);
  assert.equal(createRefusal(alice, 'DEVOPS', 'ORGANIZATION')?.status, 403);
  assert.equal(createRefusal(token, 'ADMIN', 'ORGANIZATION'), null);
});
