// How berth serves the console: the page and its assets under a strict CSP, client-side routes
// answered with index.html, every API path (and its JSON 404) untouched, the public
// configuration route, and a clear page instead of a crash when the console is not built.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { consoleCsp, consoleRoutes } from '../../src/http/console.ts';

const CONSOLE_CSP = consoleCsp();
import type { App } from '../../src/http/app-type.ts';
import { expectErrorBody, seedOrganization, startTestApp, type TestApp } from '../support/harness.ts';
import { ensureConsoleBuilt } from './browser.ts';

describe('the console is served by berth', () => {
  let t: TestApp;
  before(async () => {
    ensureConsoleBuilt();
    t = await startTestApp();
  });
  after(() => t.close());

  test('GET / answers the single-page app with a strict CSP and no inline script', async () => {
    const r = await t.request('GET', '/');
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /text\/html/);
    assert.equal(r.headers['content-security-policy'], CONSOLE_CSP);
    assert.match(CONSOLE_CSP, /default-src 'self'/);
    assert.doesNotMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval/);
    assert.match(r.raw, /<div id="root">/);
    assert.equal(r.headers['cache-control'], 'no-cache', 'a new build is picked up at once');
    assert.doesNotMatch(r.raw, /<script>(?!<)|<script(?![^>]*\bsrc=)[^>]*>/, 'every script is an external file');
    assert.doesNotMatch(r.raw, /https?:\/\//, 'no outside asset');
  });

  test('the assets it references are served, immutable, without a credential', async () => {
    const page = (await t.request('GET', '/')).raw;
    const assets = [...page.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.length >= 2, 'a script and a stylesheet');
    for (const a of assets) {
      const r = await t.request('GET', a);
      assert.equal(r.status, 200, a);
      assert.match(String(r.headers['cache-control']), /immutable/);
      assert.ok(r.raw.length > 100);
    }
  });

  test('client-side routes answer index.html; a missing asset is the usual JSON 404', async () => {
    for (const path of ['/ui', '/ui/environments/1d8c6d3a-0000-4000-8000-000000000000', '/ui/anything/deeper']) {
      const r = await t.request('GET', path);
      assert.equal(r.status, 200, path);
      assert.match(r.raw, /<div id="root">/);
    }
    expectErrorBody(await t.request('GET', '/assets/no-such-file.js'), 404);
    const escape = await t.request('GET', '/assets/..%2F..%2Fpackage.json');
    assert.notEqual(escape.status, 200);
    assert.doesNotMatch(escape.raw, /"name": "berth"/);
  });

  test('API paths answer exactly as before: JSON, authenticated, JSON 404 for unknown ones', async () => {
    const org = await seedOrganization(t);
    const unknown = await t.request('GET', '/no-such-api-path', { token: org.token });
    assert.equal(expectErrorBody(unknown, 404).code, 'not_found');
    expectErrorBody(await t.request('GET', '/api/v1/no-such-api-path'), 404);
    expectErrorBody(await t.request('GET', '/organization'), 401);
    const orgs = await t.request('GET', '/organization', { token: org.token, headers: { accept: 'text/html' } });
    assert.equal(orgs.status, 200);
    assert.match(String(orgs.headers['content-type']), /application\/json/);
    assert.equal(orgs.headers['content-security-policy'], undefined);
    expectErrorBody(await t.request('POST', '/', { body: {} }), 405);
  });

  test('GET /console/config is public, holds no secret, and is in the OpenAPI document', async () => {
    for (const path of ['/console/config', '/api/v1/console/config']) {
      const r = await t.request('GET', path);
      assert.equal(r.status, 200, path);
      assert.deepEqual(Object.keys(r.body).sort(), ['engine', 'oidc', 'public_url', 'version']);
      assert.equal(r.body.oidc, null, 'no OIDC configured here');
      assert.equal(r.body.engine, 'simulated');
      assert.equal(r.body.public_url, 'http://berth.test');
    }
    const doc = (await t.request('GET', '/openapi.json')).body;
    assert.equal(doc.paths['/console/config'].get.operationId, 'getConsoleConfig');
    assert.deepEqual(doc.paths['/console/config'].get.security, []);
    assert.equal(doc.paths['/'], undefined, 'the console pages are not API operations');
  });
});

describe('a berth whose console is not built', () => {
  test('answers / with a page saying how to build it, not a crash', async () => {
    const app = Fastify();
    await consoleRoutes(app as unknown as App, { dist: mkdtempSync(join(tmpdir(), 'berth-no-console-')) });
    const r = await app.inject({ method: 'GET', url: '/' });
    assert.equal(r.statusCode, 503);
    assert.match(r.headers['content-type'] as string, /text\/html/);
    assert.match(r.body, /npm run build:console/);
    assert.equal(r.headers['content-security-policy'], CONSOLE_CSP);
    const deep = await app.inject({ method: 'GET', url: '/ui/projects/x' });
    assert.equal(deep.statusCode, 503);
    await app.close();
  });
});
