// An agent run per pull request (issue 40) on the Docker engine with the scripted model: an
// environment (auto_preview) whose app `web` tracks main of a repository on a loopback git server,
// and a workflow its pull requests trigger. A signed GitHub pull_request delivery opens a preview;
// once the preview is deployed at the head commit a run starts against it, its agent (Claude Code,
// the pinned harness) fetches the preview's URL from its payload through the egress proxy (the
// preview's host is on the run's allowlist) and gets the app's answer; a new commit cancels the
// run in progress (CANCELED, naming the newer commit) and a run for the new head succeeds; its
// verdict is posted to the provider API on loopback as the commit status `berth/agent/reviewer`
// and as the "Agent runs" row of berth's comment. A pull request from a fork gets no preview
// environment and no run until it is approved through the API; then its preview deploys and the
// run happens.
//
// How the run reaches things:
// - the scripted model is a process on the test host at host.docker.internal:<port> (the egress
//   proxy maps that name to the host gateway, as it does for berth's MCP server), so it answers
//   whichever network the run is in (the preview's);
// - the preview's URL is http://<slug>.berth.test:<ingress port>. berth's ingress listens on every
//   interface (INGRESS_HOST=0.0.0.0), and `<slug>.berth.test` is made resolvable on the preview's
//   network by a test container carrying that name as a network alias and forwarding TCP to the
//   ingress on the host: the stand-in for the wildcard DNS record a real INGRESS_DOMAIN has. (The
//   default `localhost` domain cannot work here: `*.localhost` resolves to nothing inside a
//   container, and the run's NO_PROXY=localhost sends curl past the proxy.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { networkName } from '../../src/engine/docker/naming.ts';
import { busyboxImage, NO_DOCKER, testDocker } from '../support/docker.ts';
import { agentBaseImage, fixtureLabels, removeByLabel, type ScriptedModel, type Step } from '../support/agent-fixtures.ts';
import { startScriptedModelProcess } from '../support/scripted-model-process.ts';
import { removeEnvironment, startEngineBerth, type EngineBerth } from '../support/engine-berth.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { startProviderApi, type ProviderApi } from '../support/provider-api.ts';
import { eventually } from '../support/harness.ts';
import { otherDelivery, signed, type PullRequestOptions } from '../git-push/fixtures.ts';
import { escapeMarkdown } from '../../src/modules/provider-status/provider-status.rules.ts';

const found = await testDocker();
const API_KEY = 'sk-ant-test-key-pr-7c1d';
const DOMAIN = 'berth.test';
const NODE_BINARY = new URL('../../node_modules/node/bin/node', import.meta.url).pathname;
/** a TCP forwarder: every connection to PORT goes to the same port on the Docker host */
const FORWARD = 'const net=require("net");const p=Number(process.env.PORT);net.createServer((c)=>{const u=net.connect(p,"host.docker.internal");'
  + 'c.pipe(u);u.pipe(c);u.on("error",()=>c.destroy());c.on("error",()=>u.destroy());}).listen(p,"0.0.0.0")';

describe('docker engine: an agent run per pull request', { skip: found ? false : NO_DOCKER, timeout: 600_000 }, () => {
  const docker = found?.docker!;
  let berth: EngineBerth;
  let git: GitServer;
  let providerApi: ProviderApi;
  let model: ScriptedModel;
  let base: string;
  let orgId: string;
  let projectId: string | undefined;
  let envId: string;
  let secret: string;
  let workflowId: string;
  let web: string;
  const scripts: Record<string, Step[]> = {};
  const timings: Record<string, number> = {};
  const t0 = Date.now();
  const mark = (what: string) => { timings[what] = Math.round((Date.now() - t0) / 100) / 10; };

  async function api(method: string, url: string, body?: unknown) {
    const r = await berth.api(method, url, body);
    assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }
  /** the pull_request event GitHub would send, signed with the organization's git webhook secret; berth's receipt */
  async function pullRequest(commit: string, o: PullRequestOptions) {
    const d = signed('github', otherDelivery('github-pr', web, commit, o), secret);
    const res = await fetch(`${berth.process.url}/gitWebhook/${orgId}/github`, { method: 'POST', headers: d.headers, body: d.body });
    const receipt = await res.json() as { previews: Array<{ outcome: string; preview_id: string | null; preview_environment_id: string | null }> };
    assert.equal(res.status, 200, JSON.stringify(receipt));
    return receipt.previews;
  }
  const runs = async () => (await api('GET', `/agenticWorkflow/${workflowId}/run`)).results as Array<Record<string, any>>;
  const runLog = async (runId: string): Promise<string[]> =>
    (await api('GET', `/agenticWorkflow/${workflowId}/run/${runId}/log?page_size=100`)).results.map((l: { message: string }) => l.message);
  const finalRun = (pred: (r: Record<string, any>) => boolean, ms = 180_000) => eventually(async () => {
    const r = (await runs()).find(pred);
    return r && ['SUCCEEDED', 'FAILED', 'CANCELED'].includes(r.status) ? r : null;
  }, ms, 500);
  /** the default public URL of `web` in the preview environment */
  const previewUrl = async (copyId: string): Promise<string> => {
    const service = (await api('GET', `/environment/${copyId}/services`)).results.find((s: { name: string }) => s.name === 'web');
    assert.ok(service, 'the preview has its copy of web');
    return (await api('GET', `/application/${service.id}/link`)).results.find((l: { is_default: boolean }) => l.is_default).url;
  };
  /** the preview's public host name resolves on its network to a forwarder to the ingress (see the header) */
  async function resolvableOnPreviewNetwork(copyId: string, url: string): Promise<void> {
    const network = networkName(copyId);
    await eventually(async () => docker.getNetwork(network).inspect().then(() => true, () => null), 120_000, 250);
    const container = await docker.createContainer({
      Image: base, name: `berth-test-ingress-alias-${process.pid}-${randomBytes(3).toString('hex')}`, Labels: fixtureLabels('ingress-alias'),
      Cmd: ['/usr/local/bin/node', '-e', FORWARD], Env: [`PORT=${new URL(url).port}`],
      HostConfig: { NetworkMode: network, Binds: [`${NODE_BINARY}:/usr/local/bin/node:ro`], ExtraHosts: ['host.docker.internal:host-gateway'], Memory: 128 * 1024 * 1024 },
      NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: [new URL(url).hostname] } } },
    });
    await container.start();
  }
  /** a Bash step fetching `url` (retried while the preview or its name comes up), printing its body */
  const fetchStep = (url: string): Step => ({
    tool_use: { name: 'Bash', input: { command: `for i in $(seq 1 40); do curl -sSf -m 5 ${url} && exit 0; sleep 1; done; echo PREVIEW-UNREACHABLE` } },
  });
  const setScript = async (name: string, steps: Step[]) => { scripts[name] = steps; await model.setScripts(scripts); };
  /** the model requests whose tool results carry `text` */
  const sawToolResult = async (text: string) => (await model.requests()).filter((r) => JSON.stringify(r.body?.messages ?? []).includes(text)
    && (r.body.messages as Array<{ content: unknown }>).some((m) => Array.isArray(m.content) && m.content.some((b: any) => b?.type === 'tool_result' && JSON.stringify(b.content).includes(text))));
  const agentStatuses = (commit: string) => providerApi.of('github', new RegExp(`^/repos/acme/site/statuses/${commit}$`)).filter((c) => c.body.context === 'berth/agent/reviewer');

  before(async () => {
    [base] = await Promise.all([agentBaseImage(docker), busyboxImage(docker)]);
    const bb = await busyboxImage(docker);
    git = await startGitServer();
    await git.createRepo('acme/site', {
      Dockerfile: `FROM ${bb}\nCOPY index.html /www/index.html\nCMD ["httpd", "-f", "-p", "8080", "-h", "/www"]\n`,
      'index.html': 'main branch\n',
    });
    web = `${git.baseUrl}/acme/site`;
    providerApi = await startProviderApi();
    model = await startScriptedModelProcess('host.docker.internal');
    berth = await startEngineBerth(found!.host, {
      AGENT_BASE_IMAGE: base, HOST: '0.0.0.0', INGRESS_HOST: '0.0.0.0', INGRESS_DOMAIN: DOMAIN, GIT_POLL_INTERVAL_SECONDS: '0',
    });
    orgId = (await api('GET', '/organization')).results[0].id;
    secret = (await api('POST', `/organization/${orgId}/gitWebhook`)).secret;
    const token = await api('POST', `/organization/${orgId}/gitToken`, { name: 'ci', type: 'GITHUB', token: 'ghp_test_pr_agent', git_api_url: providerApi.apiUrl('github') });
    projectId = (await api('POST', `/organization/${orgId}/project`, { name: `pr-agent-${Date.now()}` })).id;
    envId = (await api('POST', `/project/${projectId}/environment`, { name: 'staging', mode: 'STAGING', auto_preview: true })).id;
    await api('POST', `/environment/${envId}/application`, {
      name: 'web', git_repository: { url: `${web}.git`, branch: 'main', git_token_id: token.id }, cpu: 250, memory: 64,
      ports: [{ internal_port: 8080, publicly_accessible: true }],
    });
    workflowId = (await api('POST', `/environment/${envId}/agenticWorkflow`, {
      name: 'reviewer', agent_prompt: 'Test the preview of the pull request and give a one-line verdict.',
      model: { type: 'CLAUDE', api_key: API_KEY, settings: JSON.stringify({ base_url: model.baseUrlInNetwork, max_turns: 5, timeout_seconds: 300 }) },
      resources: { cpu_milli: 1000, ram_mib: 1024, gpu: 0, storage_gib: 0 },
      pull_requests: { repository_url: web },
    })).id;
    mark('setup');
  }, { timeout: 600_000 });

  after(async () => {
    // the forwarders first (they hold the previews' networks), then the previews and the environment as a user removes them
    await removeByLabel(docker).catch(() => {});
    if (berth && projectId) {
      const envs = ((await berth.api('GET', `/project/${projectId}/environment`)).body?.results ?? []) as Array<{ id: string }>;
      for (const e of envs.filter((x) => x.id !== envId)) await removeEnvironment(berth, docker, e.id);
      await removeEnvironment(berth, docker, envId);
      await eventually(async () => (await docker.listNetworks({ filters: { label: [`berth.project_id=${projectId}`] } })).length === 0 || null, 30_000, 500).catch(() => {});
    }
    await removeByLabel(docker).catch(() => {});
    await berth?.close();
    await model?.stop();
    await git?.close();
    await providerApi?.close();
    process.stdout.write(`pull-request-agent timings (s since start): ${JSON.stringify(timings)}\n`);
  });

  test('the run fetches the preview through the allowlist; a new commit cancels it and the new head\'s run posts its verdict', async () => {
    const c1 = await git.commit('acme/site', { 'index.html': 'pull request 7 at v1\n' }, 'feature');
    const [opened] = await pullRequest(c1, { action: 'opened', number: 7, head: 'feature', base: 'main', body: 'Adds v1. [script:pr7]' });
    assert.equal(opened!.outcome, 'created', JSON.stringify(opened));
    const copyId = opened!.preview_environment_id!;
    const url = await previewUrl(copyId);
    assert.match(url, new RegExp(`^http://[a-z0-9-]+\\.${DOMAIN.replace('.', '\\.')}:\\d+$`), url);
    // c1: fetch the preview, then take long (the model answers the next turn after two minutes: the run is in progress when the next commit comes)
    await setScript('pr7', [fetchStep(url), { sleep_ms: 120_000, text: 'too late' }]);
    await resolvableOnPreviewNetwork(copyId, url);

    const first = await eventually(async () => (await runs()).find((r) => r.head_commit === c1) ?? null, 120_000, 500);
    mark('c1 run created');
    const [preview] = (await api('GET', `/environment/${envId}/preview`)).results;
    assert.equal(preview.state, 'OPEN');
    assert.deepEqual([first.trigger, first.preview_id, first.clone_environment_id], ['PULL_REQUEST', preview.id, copyId]);
    // the run started once the preview was deployed at c1
    const copyWeb = (await api('GET', `/environment/${copyId}/services`)).results.find((s: { name: string }) => s.name === 'web');
    const deployed = (await api('GET', `/application/${copyWeb.id}/deploymentHistoryV2?page_size=10`)).results
      .find((d: { git_commit_id: string; status: string }) => d.git_commit_id === c1 && d.status === 'DEPLOYED');
    assert.ok(deployed, 'the preview is deployed at c1');
    assert.equal(first.payload.pull_request.head_commit, c1);
    assert.equal(first.payload.preview.services.find((s: { name: string }) => s.name === 'web').url, url, 'the preview\'s URL is in the payload');

    // the agent got the preview app's answer through the proxy
    const fetched = await eventually(async () => (await sawToolResult('pull request 7 at v1')).length > 0 || null, 180_000, 500).catch(() => null);
    mark('c1 agent fetched the preview');
    if (!fetched) {
      const now = (await runs()).find((r) => r.id === first.id)!;
      assert.fail(`the agent did not get the preview's answer: ${now.status} ${now.message}\n${(await runLog(first.id)).join('\n')}`);
    }
    assert.ok((await model.requests()).every((r) => r.headers['x-api-key'] === API_KEY));
    const log1 = await runLog(first.id);
    const egress = log1.find((l) => l.startsWith('Egress through the proxy only')) ?? '';
    assert.ok(egress.includes(new URL(url).hostname), `the preview's host is on the allowlist: ${egress}`);
    assert.ok(log1.some((l) => new RegExp(`^Cloning .*acme/site.* \\(branch feature at ${c1.slice(0, 12)}\\)`).test(l)), log1.join('\n'));
    assert.ok(!(await sawToolResult('PREVIEW-UNREACHABLE')).length);
    await eventually(async () => agentStatuses(c1).some((c) => c.body.state === 'pending') || null, 30_000, 250);

    // a new commit while c1's agent sleeps: c1's run is canceled, naming c2; c2's run fetches v2 and gives its verdict
    const c2 = await git.commit('acme/site', { 'index.html': 'pull request 7 at v2\n' }, 'feature');
    // the new head's agent uses the preview's address on its own network (reachable through the proxy on any install, no DNS needed)
    const internal = first.payload.preview.services.find((s: { name: string }) => s.name === 'web').internal_url as string;
    assert.match(internal, /^http:\/\/[a-z0-9-]+:8080$/, internal);
    await setScript('pr7', [fetchStep(internal), { text: 'LGTM: the preview serves v2.' }]);
    const [synced] = await pullRequest(c2, { action: 'synchronize', number: 7, head: 'feature', base: 'main', body: 'Adds v1. [script:pr7]' });
    assert.equal(synced!.outcome, 'redeployed', JSON.stringify(synced));
    const stale = await finalRun((r) => r.id === first.id, 30_000);
    mark('c1 run canceled');
    assert.equal(stale.status, 'CANCELED', `${stale.message}\n${(await runLog(first.id)).join('\n')}`);
    assert.match(stale.message, new RegExp(`newer commit \\(${c2.slice(0, 12)}\\) was pushed`));
    assert.ok(!(await runLog(first.id)).some((l) => l.includes('too late')));
    // the canceled run's agent and proxy are gone from the daemon
    await eventually(async () => (await docker.listContainers({ all: true, filters: { label: [`berth.run_id=${first.id}`] } })).length === 0 || null, 30_000, 500);

    const fresh = await finalRun((r) => r.head_commit === c2);
    mark('c2 run finished');
    assert.equal(fresh.status, 'SUCCEEDED', `${fresh.message}\n${(await runLog(fresh.id)).join('\n')}`);
    assert.equal(fresh.result, 'LGTM: the preview serves v2.');
    assert.equal(fresh.trigger, 'PULL_REQUEST');
    assert.ok((await sawToolResult('pull request 7 at v2')).length > 0, 'the new head\'s agent got the redeployed preview');
    assert.equal((await runs()).length, 2, 'one run per head commit');

    // the verdict on the provider: c2's status ends success with the final answer; c1's says it was canceled
    const verdicts = await eventually(async () => agentStatuses(c2).at(-1)?.body.state === 'success' ? agentStatuses(c2) : null, 30_000, 250);
    mark('c2 verdict posted');
    assert.equal(verdicts.at(-1)!.body.description, 'LGTM: the preview serves v2.');
    assert.match(String(verdicts.at(-1)!.body.target_url), new RegExp(`/ui/workflows/${workflowId}/runs/${fresh.id}$`));
    assert.ok(verdicts.every((c) => c.authorization === 'token ghp_test_pr_agent' || /ghp_test_pr_agent/.test(String(c.authorization))));
    await eventually(async () => agentStatuses(c1).at(-1)?.body.state === 'error' || null, 30_000, 250);
    const comment = await eventually(async () => {
      const bodies = providerApi.of('github', /^\/repos\/acme\/site\/issues\/(7\/comments|comments\/\d+)$/).map((c) => String(c.body.body));
      return bodies.findLast((b) => b.includes('#### Agent runs') && b.includes(escapeMarkdown('LGTM: the preview serves v2.'))) ?? null;
    }, 30_000, 250).catch(() => assert.fail(`no Agent runs row with the verdict; the comments:\n${providerApi.of('github', /\/issues\//).map((c) => `${c.method} ${c.path}\n${String(c.body.body)}`).join('\n---\n')}`));
    const rows = comment.split('\n').filter((l) => l.startsWith('| [reviewer]'));
    assert.equal(rows.length, 1, `the new head's run replaced the stale one's row:\n${comment}`);
    assert.match(rows[0]!, new RegExp(`^\\| \\[reviewer\\]\\(http[^)]+/ui/workflows/${workflowId}/runs/${fresh.id}\\) `), 'the row links to the run\'s transcript in berth');
    assert.ok(rows[0]!.includes(`| ✅ Done | ${escapeMarkdown('LGTM: the preview serves v2.')} | \`${c2.slice(0, 7)}\` |`), rows[0]);
    assert.equal(providerApi.of('github', /^\/repos\/acme\/site\/issues\/7\/comments$/).length, 1, 'one comment, edited in place');
  });

  test('a pull request from a fork gets no preview and no run until approved; then the preview deploys and the run happens', async () => {
    const c3 = await git.commit('acme/site', { 'index.html': 'fork patch\n' }, 'patch-1');
    const [opened] = await pullRequest(c3, { action: 'opened', number: 8, head: 'patch-1', base: 'main', fork: 'stranger/site', body: 'Fix the page. [script:fork8]' });
    assert.deepEqual([opened!.outcome, opened!.preview_environment_id], ['awaiting_approval', null], JSON.stringify(opened));
    const previewId = opened!.preview_id!;
    await new Promise((r) => setTimeout(r, 3000));
    const waiting = (await api('GET', `/environment/${envId}/preview`)).results.find((p: { id: string }) => p.id === previewId);
    assert.deepEqual([waiting.state, waiting.preview_environment_id], ['AWAITING_APPROVAL', null]);
    const envs = (await api('GET', `/project/${projectId}/environment`)).results as Array<{ id: string }>;
    assert.equal(envs.length, 2, 'the source and pull request 7\'s preview only: no copy for the fork');
    assert.ok(!(await runs()).some((r) => r.head_commit === c3), 'no run');
    assert.deepEqual(agentStatuses(c3), [], 'no agent status for the fork\'s commit');

    const approved = await berth.api('POST', `/environment/${envId}/preview/${previewId}/approve`);
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    mark('fork approved');
    const copyId = await eventually(async () => (await api('GET', `/environment/${envId}/preview`)).results
      .find((p: { id: string; preview_environment_id: string | null }) => p.id === previewId && p.preview_environment_id)?.preview_environment_id ?? null, 30_000, 250);
    const url = await previewUrl(copyId);
    await setScript('fork8', [fetchStep(url), { text: 'The fork\'s change works.' }]);
    await resolvableOnPreviewNetwork(copyId, url);
    const run = await finalRun((r) => r.head_commit === c3);
    mark('fork run finished');
    assert.equal(run.status, 'SUCCEEDED', `${run.message}\n${(await runLog(run.id)).join('\n')}`);
    assert.equal(run.preview_id, previewId);
    assert.equal(run.clone_environment_id, copyId);
    assert.equal(run.payload.pull_request.from_fork, true);
    assert.ok((await sawToolResult('fork patch')).length > 0, 'the agent got the fork preview\'s answer');
    const verdict = await eventually(async () => agentStatuses(c3).at(-1)?.body.state === 'success' ? agentStatuses(c3).at(-1)! : null, 30_000, 250);
    assert.equal(verdict.body.description, 'The fork\'s change works.');
    await eventually(async () => providerApi.of('github', /^\/repos\/acme\/site\/issues\/(8\/comments|comments\/\d+)$/)
      .some((c) => String(c.body.body).includes(escapeMarkdown('The fork\'s change works.'))) || null, 30_000, 250);
    mark('fork verdict posted');
  });
});
