// Unit tests of the output delivery rules: which outputs and run states are delivered, the body,
// the derived signing secret (checked against the reference library), the headers sent and refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signatureHeaders } from '../webhooks/webhooks.rules.ts';
import {
  attemptHeaders, deliverableOutputs, FINAL_RUN_STATUSES, headersProblem, OUTPUT_MESSAGE_TYPE, outputMessage, outputSigningSecret, outputUrlProblem,
  type FinishedRunFacts,
} from './outputs.rules.ts';

const run: FinishedRunFacts = {
  id: '6f1c2d3e-0000-4000-8000-000000000001', status: 'SUCCEEDED', trigger: 'WEBHOOK', message: null, result: 'done', num_turns: 3,
  input_tokens: 10, output_tokens: 20, cost_usd: 0.01, duration_ms: 1500, created_at: '2026-01-01T00:00:00.000Z',
  started_at: '2026-01-01T00:00:01.000Z', finished_at: '2026-01-01T00:00:03.000Z', workflow_id: '6f1c2d3e-0000-4000-8000-0000000000aa',
  workflow_name: 'triage', environment_id: '6f1c2d3e-0000-4000-8000-0000000000bb', organization_id: '6f1c2d3e-0000-4000-8000-0000000000cc',
};

test('outputs with a url are delivered, in order; only final run states', () => {
  const outputs = [
    { name: 'a', url: 'https://a.example/x', headers: [], instructions: '' },
    { name: 'b', url: null, headers: [], instructions: '' },
    { name: 'c', url: '  ', headers: [], instructions: '' },
    { name: 'd', url: 'https://d.example/', headers: [], instructions: '' },
  ];
  assert.deepEqual(deliverableOutputs(outputs).map((o) => o.name), ['a', 'd']);
  assert.deepEqual([...FINAL_RUN_STATUSES], ['SUCCEEDED', 'FAILED', 'CANCELED']);
});

test('the body names the run, the workflow, the output and where it ran', () => {
  const m = outputMessage(run, 'slack', new Date('2026-01-01T00:00:04Z'));
  assert.equal(m.type, OUTPUT_MESSAGE_TYPE);
  assert.equal(m.timestamp, '2026-01-01T00:00:04.000Z');
  assert.deepEqual(m.data.agentic_workflow, { id: run.workflow_id, name: 'triage' });
  assert.deepEqual(m.data.output, { name: 'slack' });
  assert.deepEqual([m.data.run.id, m.data.run.result, m.data.run.cost_usd, m.data.environment_id], [run.id, 'done', 0.01, run.environment_id]);
});

test('the signing secret is HMAC-SHA256(webhook secret, label + workflow id), and verifies', () => {
  const secret = outputSigningSecret('hook-secret', run.workflow_id);
  const expected = createHmac('sha256', 'hook-secret').update(`berth-agentic-workflow-outputs:${run.workflow_id}`).digest('base64');
  assert.equal(secret, `whsec_${expected}`);
  assert.equal(outputSigningSecret('hook-secret', run.workflow_id.toUpperCase()), secret);
  assert.notEqual(outputSigningSecret('hook-secret', run.environment_id), secret, 'a copy of the workflow (same webhook secret) signs with another key');
  const body = JSON.stringify(outputMessage(run, 'x', new Date()));
  assert.ok(new Webhook(secret).verify(body, signatureHeaders(secret, 'msg_1', body)));
});

test("the output's headers are sent, except those berth sets; unsendable ones are named", () => {
  const sig = signatureHeaders('whsec_AAAA', 'msg_1', '{}');
  const h = attemptHeaders([{ name: 'Authorization', value: 'Bearer t' }, { name: 'Webhook-Signature', value: 'v1,forged' }, { name: 'Host', value: 'evil' }], sig);
  assert.deepEqual(Object.keys(h).sort(), ['Authorization', 'webhook-id', 'webhook-signature', 'webhook-timestamp']);
  assert.equal(h['webhook-signature'], sig['webhook-signature']);
  assert.equal(headersProblem([{ name: 'X-Ok', value: 'Bearer abc; é' }]), null);
  assert.match(headersProblem([{ name: 'Bad Name', value: 'x' }])!, /'Bad Name' is not a valid HTTP header name/);
  assert.match(headersProblem([{ name: 'X-A', value: 'a\nb' }])!, /'X-A' contains characters/);
  assert.match(headersProblem([{ name: 'X-A', value: 'snow ☃' }])!, /'X-A'/);
});

test("targets: the webhooks' rule, worded for an output", () => {
  assert.equal(outputUrlProblem('https://hooks.example.com/x', false), null);
  assert.match(outputUrlProblem('http://127.0.0.1/x', false)!, /^the output's url must not point to a loopback.*WEBHOOK_ALLOW_PRIVATE_TARGETS=true/);
  assert.equal(outputUrlProblem('http://127.0.0.1/x', true), null);
  assert.match(outputUrlProblem('ftp://example.com', true)!, /^the output's url must be an absolute http or https URL/);
});
