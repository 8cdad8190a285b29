// The pure rules of notification channels: URL and recipient validation, the incident decision,
// the three renderings of a message and what a webhook answer means.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  discordPayload, emailMessage, incidentDecision, incidentMessage, recipientsProblem, slackPayload, webhookHost, webhookOutcome, webhookUrlProblem,
} from './notifications.rules.ts';
import { deploymentFailedIncident } from './notifications.incidents.ts';

test('webhook URLs: http(s) only, https and public hosts unless private targets are allowed', () => {
  assert.equal(webhookUrlProblem('https://hooks.slack.com/services/T/B/x', false), null);
  assert.equal(webhookUrlProblem('https://discord.com/api/webhooks/1/abc', false), null);
  assert.match(webhookUrlProblem('nope', false)!, /absolute http or https/);
  assert.match(webhookUrlProblem('http://hooks.example.com/x', false)!, /https/);
  assert.match(webhookUrlProblem('https://127.0.0.1/x', false)!, /loopback, private/);
  assert.match(webhookUrlProblem('https://169.254.169.254/latest', false)!, /metadata/);
  assert.match(webhookUrlProblem('https://localhost/x', false)!, /loopback/);
  assert.match(webhookUrlProblem('https://u:p@example.com/x', false)!, /credentials/);
  assert.equal(webhookUrlProblem('http://127.0.0.1:9/x', true), null);
  assert.equal(webhookHost('https://hooks.slack.com/services/T/B/secret'), 'hooks.slack.com');
});

test('recipients: at least one, each an address, no repeats', () => {
  assert.equal(recipientsProblem(['ops@example.com', 'root@localhost']), null);
  assert.match(recipientsProblem([])!, /at least one/);
  assert.match(recipientsProblem(['Ops <ops@example.com>'])!, /not an e-mail address/);
  assert.match(recipientsProblem(['a@example.com', 'A@example.com'])!, /repeat/);
});

test('the incident decision: open when none is open, a repeat (no message) otherwise', () => {
  assert.deepEqual(incidentDecision(null), { action: 'OPEN' });
  assert.deepEqual(incidentDecision({ id: 'x' }), { action: 'REPEAT', id: 'x' });
});

test('renderings: Slack {text, blocks}, Discord {content, embeds} within its limits, e-mail subject on one line', () => {
  const m = incidentMessage({ kind: 'BACKUP_OVERDUE', title: 'orders\ndb', body: 'x'.repeat(5000), link: 'https://berth.test/db' }, 'acme', new Date('2026-01-01T00:00:00Z'));
  const s = slackPayload(m);
  assert.match(s.text, /^Backup overdue: orders/);
  assert.ok(s.blocks.some((b) => JSON.stringify(b).includes('<https://berth.test/db|Open in berth>')));
  const d = discordPayload(m);
  assert.ok(d.content.length <= 2000);
  assert.ok(String(d.embeds[0]!.description).length <= 4096);
  assert.equal(d.embeds[0]!.url, 'https://berth.test/db');
  const e = emailMessage(m);
  assert.equal(e.subject, '[berth] Backup overdue: orders db');
  assert.match(e.text, /https:\/\/berth.test\/db\n\n-- berth · organization acme · BACKUP_OVERDUE/);
});

test('a webhook answer: 2xx delivered, 429/5xx/no answer retried, other 4xx and refused targets given up', () => {
  assert.equal(webhookOutcome(204, false), 'DELIVERED');
  assert.equal(webhookOutcome(503, false), 'RETRY');
  assert.equal(webhookOutcome(429, false), 'RETRY');
  assert.equal(webhookOutcome(null, false), 'RETRY');
  assert.equal(webhookOutcome(404, false), 'GIVE_UP');
  assert.equal(webhookOutcome(null, true), 'GIVE_UP');
});

test('a failed deployment is its service\'s incident', () => {
  const i = deploymentFailedIncident({ id: 'd1', service_id: 's1', service_name: 'api', service_type: 'CONTAINER', status: 'BUILD_ERROR', action: 'DEPLOY', message: 'no Dockerfile' });
  assert.equal(i.key, 'deployment:s1');
  assert.equal(i.kind, 'DEPLOYMENT_FAILED');
  assert.match(i.text, /Reason: no Dockerfile/);
});
