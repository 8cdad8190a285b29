// The pure parts of berth.yaml: what "unchanged" means (a member written holds when the current
// value has it, members not written keep theirs), field-by-field changes, fitting an API response
// to an entry, the plan's order, ownership refusal and prune, and the check of a parsed value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../lib/errors.ts';
import { checkDocument, parseManifest } from './document.ts';
import { fieldChanges, fingerprint, plan, satisfies, type CurrentState } from './manifests.rules.ts';
import { fit } from './state.ts';

test('satisfies: desired members only; arrays by length and position; null is absent', () => {
  assert.ok(satisfies({ url: 'u' }, { url: 'u', branch: 'main' }));
  assert.ok(!satisfies({ url: 'u', branch: 'dev' }, { url: 'u', branch: 'main' }));
  assert.ok(satisfies([{ internal_port: 80 }], [{ internal_port: 80, id: 'x' }]));
  assert.ok(!satisfies([{ internal_port: 80 }], [{ internal_port: 80 }, { internal_port: 81 }]));
  assert.ok(satisfies(null, undefined));
  assert.ok(!satisfies(1, '1'));
});

test('fieldChanges: one entry per member that differs, from and to', () => {
  assert.deepEqual(fieldChanges({ cpu: 1000, memory: 512 }, { cpu: 500, memory: 512 }), [{ field: 'cpu', from: 500, to: 1000 }]);
  assert.deepEqual(fieldChanges({ cpu: 1000 }, null), [{ field: 'cpu', from: null, to: 1000 }]);
});

test('fit keeps only what the schema has', () => {
  const schema = { type: 'object', properties: { a: { type: 'integer' }, b: { anyOf: [{ type: 'object', properties: { c: { type: 'string' } } }, { type: 'null' }] } } };
  assert.deepEqual(fit(schema, { a: 1, b: { c: 'x', d: 'y' }, e: 2 }), { a: 1, b: { c: 'x' } });
  assert.deepEqual(fit(schema, { a: 1, b: null }), { a: 1, b: null });
});

const current: CurrentState = {
  project: { id: 'p', name: 'shop', description: '' },
  environments: [{
    id: 'e', name: 'staging', mode: 'STAGING', cluster: 'local', auto_preview: false, rule: null,
    variables: { A: { id: 'va', value: '1' } }, secrets: { S: { id: 'vs', fingerprint: fingerprint('old') } },
    services: [
      { id: 's1', kind: 'databases', name: 'db', entry: { type: 'POSTGRESQL', mode: 'CONTAINER', version: '16' }, variables: {}, secrets: {}, advanced: null, domains: null },
      { id: 's2', kind: 'databases', name: 'hand', entry: { type: 'REDIS', mode: 'CONTAINER', version: '7' }, variables: {}, secrets: {}, advanced: null, domains: null },
    ],
  }],
};
const doc = { version: 1 as const, project: { name: 'shop', description: '' }, environments: { staging: { mode: 'STAGING' as const, variables: { A: '1' }, secrets: { S: { from: 'env:S' } } } } };

test('plan: deletes first, only owned with prune; a secret compared by fingerprint', () => {
  const owners = new Map([['p', 'f'], ['e', 'f'], ['s1', 'f'], ['va', 'f'], ['vs', 'f']]);
  const secrets = new Map([['environments.staging.secrets.S', { value: 'new', fingerprint: fingerprint('new') }]]);
  const steps = plan({ doc, current, file: 'f', prune: true, owners, secrets, databaseRefs: new Map() });
  assert.deepEqual(steps.map((s) => `${s.change.action} ${s.change.path}`), [
    'delete environments.staging.databases.db',
    'unchanged project', 'unchanged environments.staging', 'unchanged environments.staging.variables.A', 'update environments.staging.secrets.S',
  ]);
  assert.deepEqual(steps.at(-1)!.change.changes, [{ field: 'value', changed: true }]);
  const kept = plan({ doc, current, file: 'f', prune: false, owners, secrets: new Map([['environments.staging.secrets.S', { keep: true as const }]]), databaseRefs: new Map() });
  assert.deepEqual(kept.map((s) => s.change.action), ['unchanged', 'unchanged', 'unchanged', 'unchanged']);
});

test('plan: a resource another file owns is refused with its name', () => {
  const secrets = new Map([['environments.staging.secrets.S', { keep: true as const }]]);
  assert.throws(() => plan({ doc, current, file: 'mine.yaml', prune: false, owners: new Map([['e', 'theirs.yaml']]), secrets, databaseRefs: new Map() }),
    (err: unknown) => err instanceof AppError && err.status === 409 && /theirs\.yaml/.test(err.message));
});

test('plan: variables from a database run after the environment\'s services; USER, PASSWORD and URL are secrets compared by fingerprint', () => {
  const cur = structuredClone(current);
  cur.environments[0]!.services.push({ id: 's3', kind: 'applications', name: 'web', entry: {}, variables: { DB_HOST: { id: 'vh', value: 'postgresql-s1' } },
    secrets: { DB_PASSWORD: { id: 'vp', fingerprint: fingerprint('pw') } }, advanced: null, domains: null });
  const ref = (name: string, property: 'HOST' | 'PASSWORD' | 'URL') => ({ from_database: { name, property } });
  const withRefs = { ...doc, environments: { staging: { ...doc.environments.staging, applications: { web: { variables: { DB_HOST: ref('db', 'HOST'), DB_PASSWORD: ref('db', 'PASSWORD'), NEW_URL: ref('fresh', 'URL') } } },
    databases: { fresh: { type: 'POSTGRESQL', mode: 'CONTAINER', version: '16' } } } } };
  const w = 'environments.staging.applications.web.variables';
  const databaseRefs = new Map([
    [`${w}.DB_HOST`, { name: 'db', property: 'HOST' as const, secret: false, databaseId: 's1', value: 'postgresql-s1' }],
    [`${w}.DB_PASSWORD`, { name: 'db', property: 'PASSWORD' as const, secret: true, databaseId: 's1', value: 'pw2' }],
    [`${w}.NEW_URL`, { name: 'fresh', property: 'URL' as const, secret: true, databaseId: null, value: null }],
  ]);
  const steps = plan({ doc: withRefs, current: cur, file: 'f', prune: false, owners: new Map(), secrets: new Map([['environments.staging.secrets.S', { keep: true as const }]]), databaseRefs });
  const shown = steps.map((s) => `${s.change.action} ${s.change.kind} ${s.change.path}`);
  assert.deepEqual(shown.slice(-5), [
    'unchanged application environments.staging.applications.web', 'create database environments.staging.databases.fresh',
    `unchanged variable ${w}.DB_HOST`, `update secret ${w}.DB_PASSWORD`, `create secret ${w}.NEW_URL`,
  ]);
  assert.deepEqual(steps.at(-2)!.change.changes, [{ field: 'value', changed: true }], 'a secret is shown as changed, never its value');
  assert.ok(!JSON.stringify(steps.map((s) => s.change)).includes('pw2'));
  // a plain variable does not silently become a secret
  cur.environments[0]!.services[2]!.variables.NEW_URL = { id: 'vu', value: 'x' };
  assert.throws(() => plan({ doc: withRefs, current: cur, file: 'f', prune: false, owners: new Map(), secrets: new Map([['environments.staging.secrets.S', { keep: true as const }]]), databaseRefs }),
    (err: unknown) => err instanceof AppError && err.status === 409 && /kept as a secret/.test(err.message));
});

test('checkDocument: a parsed value (no positions) against the schema', () => {
  assert.deepEqual(checkDocument(doc), []);
  const problems = checkDocument({ ...doc, environments: { staging: { secrets: { S: 'value' } } } });
  assert.equal(problems.length, 1);
  assert.match(problems[0]!.message, /never written in the file/);
});

test('an alias bomb is a problem of the file (400), not of the server', () => {
  const lines = ['a: &a [x, x, x, x, x, x, x, x, x]'];
  for (let i = 0; i < 12; i++) {
    const prev = String.fromCharCode(97 + i);
    lines.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${prev}`).join(', ')}]`);
  }
  const r = parseManifest(lines.join('\n'));
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.problems[0]!.message : '', /^YAML: /);
});
