// Unit tests of the prompt an agent run receives: the workflow's agent_prompt first, then what
// started the run (with the payload as pretty JSON, truncated past its limit), where the answer
// goes (the outputs' instructions), the context services (their copies in CLONE_ENVIRONMENT), and
// the repositories in /workspace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composePrompt, PAYLOAD_PROMPT_LIMIT, type PromptInput } from './agent-prompt.ts';

const input = (over: Partial<PromptInput> = {}): PromptInput => ({
  agentPrompt: 'You are the on-call triage agent. Find the cause of the alert and fix it if it is safe.',
  trigger: 'WEBHOOK', triggeredBy: null, payload: null, scheduledFor: null, outputs: [], services: [], repositories: [], cloneEnvironment: false,
  ...over,
});

test('agent_prompt comes first; an empty one gets a default task', () => {
  const p = composePrompt(input({ payload: { alert: 'disk full on db-1' } }));
  assert.ok(p.startsWith('You are the on-call triage agent.'), p.slice(0, 80));
  assert.ok(p.indexOf('You are the on-call') < p.indexOf('## Trigger'));
  const blank = composePrompt(input({ agentPrompt: '  \n ' }));
  assert.ok(blank.trim().length > 0);
  assert.ok(!blank.startsWith('\n') && !blank.startsWith('#'), 'a task sentence, not an empty first part');
});

test('the payload is pretty-printed JSON in a fenced block', () => {
  const payload = { alert: 'disk full on db-1', labels: ['sev2', 'storage'], host: { name: 'db-1', used: 0.97 } };
  const p = composePrompt(input({ payload }));
  assert.ok(p.includes(`\`\`\`json\n${JSON.stringify(payload, null, 2)}\n\`\`\``), p);
  // scalars and arrays are payloads too; null and undefined are none
  assert.ok(composePrompt(input({ payload: 'just text' })).includes('"just text"'));
  assert.ok(composePrompt(input({ payload: [1, 2] })).includes('[\n  1,\n  2\n]'));
  assert.ok(!composePrompt(input({ payload: null })).includes('```json'));
  assert.ok(!composePrompt(input({ payload: undefined })).includes('```json'));
  // false and 0 are payloads
  assert.ok(composePrompt(input({ payload: false })).includes('```json\nfalse\n```'));
  assert.ok(composePrompt(input({ payload: 0 })).includes('```json\n0\n```'));
});

test('a payload past PAYLOAD_PROMPT_LIMIT is truncated, saying so', () => {
  const payload = { blob: 'x'.repeat(PAYLOAD_PROMPT_LIMIT * 2) };
  const p = composePrompt(input({ payload }));
  assert.ok(p.length < PAYLOAD_PROMPT_LIMIT + 2000, `prompt length ${p.length}`);
  assert.match(p, /truncated/);
  assert.ok(p.includes('"blob": "xxxx'));
  // just under the limit: whole
  const fits = { b: 'y'.repeat(PAYLOAD_PROMPT_LIMIT - 20) };
  const whole = composePrompt(input({ payload: fits }));
  assert.ok(whole.includes(JSON.stringify(fits, null, 2)));
  assert.doesNotMatch(whole, /truncated/);
});

test('outputs with a url or instructions are listed with their instructions; the rest are not', () => {
  const p = composePrompt(input({
    outputs: [
      { name: 'slack-triage', url: 'https://hooks.example.com/triage', headers: [{ name: 'Authorization', value: 'Bearer out-secret-7f3a' }], instructions: 'Answer in three bullet points.' },
      { name: 'archive', url: 'https://archive.example.com/in', headers: [], instructions: '' },
      { name: 'report-only', url: null, headers: [], instructions: '  End with a one-line summary.  ' },
      { name: 'nothing', url: null, headers: [], instructions: '   ' },
    ],
  }));
  assert.match(p, /## Outputs/);
  assert.match(p, /- slack-triage: Answer in three bullet points\./);
  assert.match(p, /- archive\n/);
  assert.match(p, /- report-only: End with a one-line summary\.\n/);
  assert.doesNotMatch(p, /- nothing/);
  assert.doesNotMatch(p, /out-secret-7f3a/, 'output headers never reach the prompt');
  assert.doesNotMatch(composePrompt(input({ outputs: [{ name: 'nothing', url: null, headers: [], instructions: '' }] })), /## Outputs/);
});

test('the trigger sentence: SCHEDULE with its occurrence, MANUAL with who, WEBHOOK', () => {
  assert.match(composePrompt(input({ trigger: 'SCHEDULE', scheduledFor: '2026-11-26T06:00:00.000Z' })),
    /started by the workflow's schedule, for the occurrence of 2026-11-26T06:00:00\.000Z/);
  assert.match(composePrompt(input({ trigger: 'MANUAL', triggeredBy: 'token ci-deployer' })), /started by hand by token ci-deployer\./);
  assert.match(composePrompt(input({ trigger: 'MANUAL', triggeredBy: null })), /started by hand\./);
  assert.match(composePrompt(input({ trigger: 'WEBHOOK', payload: { a: 1 } })), /started by a call to the workflow's webhook/);
});

const gateway = { id: 'g1', name: 'model-gateway', type: 'CONTAINER', host: 'model-gateway', ports: [4000], public_url: 'http://gw.localhost:8000', status: 'RUNNING' };

test('context services are listed with host, ports, URL and status; CLONE_ENVIRONMENT says to work on the copies', () => {
  const inPlace = composePrompt(input({ services: [gateway, { ...gateway, id: 'd', name: 'orders', type: 'DATABASE', host: 'orders', ports: [5432], public_url: null, status: 'STOPPED' }] }));
  assert.match(inPlace, /- model-gateway \(CONTAINER\): host model-gateway, ports 4000, public URL http:\/\/gw\.localhost:8000, status RUNNING/);
  assert.match(inPlace, /- orders \(DATABASE\): host orders, ports 5432, status STOPPED/);
  assert.match(inPlace, /BERTH_SERVICE_<NAME>_/);
  assert.doesNotMatch(inPlace, /copy|copies/i);
  const clone = composePrompt(input({ services: [gateway], cloneEnvironment: true }));
  assert.match(clone, /throwaway copy of the environment/);
  assert.match(clone, /work on these copies, never the original/);
  assert.doesNotMatch(composePrompt(input()), /## Platform services/);
});

test('repositories are listed with their /workspace folders, url and branch', () => {
  const p = composePrompt(input({
    repositories: [
      { dir: 'api', url: 'https://github.com/acme/api.git', branch: 'main' },
      { dir: 'api-2', url: 'https://gitlab.com/other/api', branch: 'release/2.x' },
    ],
  }));
  assert.match(p, /## Repositories/);
  assert.match(p, /- \/workspace\/api: https:\/\/github\.com\/acme\/api\.git \(branch main\)/);
  assert.match(p, /- \/workspace\/api-2: https:\/\/gitlab\.com\/other\/api \(branch release\/2\.x\)/);
  assert.doesNotMatch(composePrompt(input()), /## Repositories/);
});

test('the parts come in order: prompt, trigger, outputs, services, repositories', () => {
  const p = composePrompt(input({
    payload: { a: 1 }, outputs: [{ name: 'o', url: 'https://o.example', headers: [], instructions: 'x' }], services: [gateway],
    repositories: [{ dir: 'api', url: 'https://github.com/acme/api.git', branch: 'main' }],
  }));
  const at = ['You are the on-call', '## Trigger', '## Outputs', '## Platform services', '## Repositories'].map((h) => p.indexOf(h));
  assert.ok(at.every((i) => i >= 0), JSON.stringify(at));
  assert.deepEqual([...at].sort((a, b) => a - b), at);
});

test('a run per pull request is told it runs against the pull request\'s preview, and which commit is checked out', () => {
  const prompt = composePrompt({
    agentPrompt: 'Review it.', trigger: 'PULL_REQUEST', triggeredBy: 'pull request #9', payload: { pull_request: { number: 9 } }, scheduledFor: null,
    outputs: [], services: [{ id: 's', name: 'web', type: 'APPLICATION', host: 'web', ports: [8080], public_url: 'http://web.preview.test', status: 'DEPLOYED' }],
    repositories: [{ dir: 'shop', url: 'https://github.com/acme/shop', branch: 'feature', commit: 'c0ffee' }], cloneEnvironment: true,
  });
  assert.match(prompt, /started by pull request #9 once its preview environment was deployed and healthy/);
  assert.match(prompt, /They run in the pull request's preview environment/);
  assert.match(prompt, /\/workspace\/shop: https:\/\/github\.com\/acme\/shop \(branch feature, at commit c0ffee\)/);
});
