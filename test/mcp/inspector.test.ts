// Conformance: the MCP Inspector's CLI (`@modelcontextprotocol/inspector --cli`, the version in
// test/support/mcp-hosts.ts, installed once per machine under the test cache) against berth's MCP
// server over Streamable HTTP on loopback with `--header "Authorization: Token …"`: tools/list
// offers a DEVOPS token every tool (schemas without error-severity portability problems under
// --strict) and a VIEWER token the reading tools only; tools/call list_services answers storefront
// as the REST API does; a tool error comes back as berth's error body with isError.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOLS } from '../../src/mcp/catalog.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { seedOrganization, startTestApp, listenOnLoopback, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { installInspector, INSPECTOR_VERSION, runInspector, type InspectorRun } from '../support/mcp-hosts.ts';

const shown = (r: InspectorRun) => `inspector ${INSPECTOR_VERSION} exited ${r.code} after ${r.ms} ms\nstderr: ${r.stderr.slice(0, 2000)}\nstdout: ${r.stdout.slice(0, 2000)}`;

describe('the MCP Inspector CLI against berth', () => {
  let t: TestApp;
  let url: string;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let appId: string;

  /** `--cli <url> --transport http --header "Authorization: Token …" --method <method> …` */
  const inspect = async (token: string, method: string, ...rest: string[]) =>
    runInspector([url, '--transport', 'http', '--header', `Authorization: Token ${token}`, '--method', method, ...rest]);
  const names = (r: InspectorRun): string[] => {
    assert.equal(r.code, 0, shown(r));
    assert.ok(Array.isArray(r.json?.tools), shown(r));
    return (r.json.tools as Array<{ name: string }>).map((x) => x.name);
  };

  before(async () => {
    const installed = installInspector(); // once per machine: minutes cold, nothing after
    installed.catch(() => {}); // awaited below
    t = await startTestApp();
    url = `${await listenOnLoopback(t)}/mcp`;
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    const r = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: { name: 'storefront', git_repository: { url: 'https://github.com/acme/storefront' } } });
    assert.equal(r.status, 201, r.raw);
    appId = r.body.id;
    await installed;
  }, { timeout: 11 * 60_000 });
  after(async () => {
    await t?.close();
  });

  test('tools/list with a DEVOPS token: every tool, with its input schema and hints', async () => {
    const listed = await inspect(await org.tokenFor('DEVOPS'), 'tools/list');
    assert.deepEqual(names(listed), TOOLS.map((x) => x.name));
    assert.ok(names(listed).includes('list_services') && names(listed).includes('deploy_service'));
    const byName = new Map((listed.json.tools as any[]).map((x) => [x.name, x]));
    assert.equal(byName.get('list_services').annotations.readOnlyHint, true);
    assert.equal(byName.get('deploy_service').annotations.readOnlyHint, false);
    assert.equal(byName.get('stop_service').annotations.destructiveHint, true);
    assert.equal(byName.get('list_services').inputSchema.type, 'object');
    assert.ok('environment' in byName.get('list_services').inputSchema.properties, JSON.stringify(byName.get('list_services').inputSchema));
    assert.deepEqual(byName.get('get_service').inputSchema.required, ['service']);

    // --strict: schema-portability problems in full on stderr; exit 6 when one is error-severity
    const strict = await inspect(await org.tokenFor('DEVOPS'), 'tools/list', '--strict');
    assert.equal(strict.code, 0, shown(strict));
    assert.match(strict.stderr, /\b0 errors\b/, shown(strict));
  });

  test('tools/call list_services with a VIEWER token answers storefront, as the REST API does', async () => {
    const called = await inspect(await org.tokenFor('VIEWER'), 'tools/call', '--tool-name', 'list_services', '--tool-arg', `environment=${env.name}`);
    assert.equal(called.code, 0, shown(called));
    assert.notEqual(called.json?.isError, true, shown(called));
    const answer = called.json.structuredContent;
    assert.equal(answer.environment.id, env.id);
    assert.deepEqual(answer.services.map((s: any) => [s.id, s.name, s.type]), [[appId, 'storefront', 'APPLICATION']]);
    assert.deepEqual(JSON.parse(called.json.content[0].text), answer);
    const rest = await t.request('GET', `/environment/${env.id}/services`, { token: org.token });
    assert.deepEqual(answer.services.map((s: any) => [s.id, s.state]), rest.body.results.map((s: any) => [s.id, s.state]));
  });

  test('tools/list with a VIEWER token: the reading tools only; deploy_service is not there to call', async () => {
    const viewer = await org.tokenFor('VIEWER');
    const listed = names(await inspect(viewer, 'tools/list'));
    assert.deepEqual(listed, TOOLS.filter((x) => x.action === 'read').map((x) => x.name));
    assert.ok(listed.includes('list_services'));
    assert.ok(!listed.includes('deploy_service'));
    const refused = await inspect(viewer, 'tools/call', '--tool-name', 'deploy_service', '--tool-arg', 'service=storefront');
    assert.notEqual(refused.code, 0, shown(refused));
    assert.match(refused.stderr, /deploy_service/, shown(refused));
    const history = await t.request('GET', `/application/${appId}/deploymentHistory`, { token: org.token });
    assert.deepEqual(history.body.results, []);
  });

  test('a tool error is berth\'s error body with isError, and the CLI exits non-zero', async () => {
    const missing = await inspect(await org.tokenFor('VIEWER'), 'tools/call', '--tool-name', 'get_service', '--tool-arg', 'service=nope', `environment=${env.name}`);
    assert.notEqual(missing.code, 0, shown(missing));
    assert.equal(missing.json?.isError, true, shown(missing));
    assert.equal(missing.json.structuredContent.status, 404);
    assert.equal(missing.json.structuredContent.code, 'not_found');
    assert.equal(typeof missing.json.structuredContent.request_id, 'string');
  });
});
