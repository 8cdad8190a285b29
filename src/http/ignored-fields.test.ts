// What validation removed from a body, found from a copy of its shape taken before validation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { droppedPaths, skeleton } from './ignored-fields.ts';

test('the shape keeps every member (arrays, nesting, a member named __proto__) and no value', () => {
  const body = JSON.parse('{"name":"a","git":{"url":"u","brnch":"x"},"ports":[{"p":1,"extra":true},{"p":2}],"tags":["t"],"__proto__":{"x":1}}');
  const shape = skeleton(body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(shape), ['name', 'git', 'ports', 'tags', '__proto__']);
  assert.equal(shape.name, null);
  assert.deepEqual(JSON.parse(JSON.stringify(shape.ports)), [{ p: null, extra: null }, { p: null }]);
  assert.equal(Object.getPrototypeOf({}).x, undefined, 'nothing reached Object.prototype');
});

test('paths of the members validation removed, as with a full copy', () => {
  const body = JSON.parse('{"name":"a","git":{"url":"u","brnch":"x"},"ports":[{"p":1,"extra":true},{"p":2}],"odd key":1,"__proto__":{}}');
  const before = skeleton(body);
  const full = structuredClone(body);
  delete body.git.brnch;
  delete body.ports[0].extra;
  delete body['odd key'];
  delete body.__proto__;
  const expected = ['git.brnch', 'ports[0].extra', 'odd%20key', '__proto__'];
  assert.deepEqual(droppedPaths(before, body), expected);
  assert.deepEqual(droppedPaths(full, body), expected);
});
