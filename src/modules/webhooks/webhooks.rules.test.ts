// Unit tests of the webhook rules: filters, URL validation, back-off schedule, Retry-After, what
// one attempt's answer means, and the Standard Webhooks signature (checked against the reference library).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { canonicalEventKind } from '../../events/catalogue.ts';
import {
  attemptOutcome, DEFAULT_RETRY_SETTINGS, generateSigningSecret, matchesFilters, nextRetryDelayMs, parseRetryAfterMs, sign,
  signatureHeaders, targetUrlProblem, wildcardMatch,
} from './webhooks.rules.ts';

test('event kinds: canonical names and the public clients\' spellings', () => {
  assert.equal(canonicalEventKind('DEPLOYMENT_SUCCESSFUL'), 'DEPLOYMENT_SUCCEEDED');
  assert.equal(canonicalEventKind('DEPLOYMENT_FAILURE'), 'DEPLOYMENT_FAILED');
  assert.equal(canonicalEventKind('DEPLOYMENT_CANCELLED'), 'DEPLOYMENT_CANCELLED');
  assert.equal(canonicalEventKind('toString'), null);
  assert.equal(canonicalEventKind('deployment_started'), null);
});

test('filters: events, project-name wildcards (case-insensitive), environment types, combined with AND', () => {
  const hook = { events: ['DEPLOYMENT_STARTED'], project_names_filter: ['product*'], environment_types_filter: ['PRODUCTION'] };
  assert.equal(matchesFilters(hook, 'DEPLOYMENT_STARTED', 'Products', 'PRODUCTION'), true);
  assert.equal(matchesFilters(hook, 'DEPLOYMENT_FAILED', 'Products', 'PRODUCTION'), false);
  assert.equal(matchesFilters(hook, 'DEPLOYMENT_STARTED', 'backend', 'PRODUCTION'), false);
  assert.equal(matchesFilters(hook, 'DEPLOYMENT_STARTED', 'product', 'STAGING'), false);
  assert.equal(matchesFilters({ ...hook, project_names_filter: [], environment_types_filter: [] }, 'DEPLOYMENT_STARTED'), true);
  assert.equal(wildcardMatch('a.b*', 'axb'), false);
  assert.equal(wildcardMatch('*-api', 'Billing-API'), true);
});

test('target URLs: absolute http(s) only; private hosts refused unless allowed', () => {
  assert.equal(targetUrlProblem('https://example.com/hook', false), null);
  assert.match(targetUrlProblem('example.com/hook', false)!, /absolute/);
  assert.match(targetUrlProblem('file:///etc/passwd', false)!, /absolute/);
  assert.match(targetUrlProblem('http://user:pw@example.com/', false)!, /credentials/);
  for (const u of ['http://127.0.0.1/', 'http://[::1]/', 'http://192.168.1.10/', 'http://169.254.169.254/', 'http://LOCALHOST:80/', 'http://0.0.0.0/']) {
    assert.match(targetUrlProblem(u, false)!, /private/, u);
    assert.equal(targetUrlProblem(u, true), null, u);
  }
});

test('retry schedule: first retry within ~10 s, doubling with jitter, Retry-After honoured, gives up after three days', () => {
  const settings = { ...DEFAULT_RETRY_SETTINGS, baseDelayMs: 5000, maxDelayMs: 6 * 3600_000, giveUpAfterMs: 3 * 86400_000 };
  const first = nextRetryDelayMs(settings, 1, 0, undefined, () => 0.999)!;
  assert.ok(first <= 10_000 && first >= 2500);
  assert.equal(nextRetryDelayMs(settings, 3, 0, undefined, () => 0.5), 20_000);
  assert.equal(nextRetryDelayMs(settings, 30, 0, undefined, () => 0.5), 6 * 3600_000);
  assert.equal(nextRetryDelayMs(settings, 1, 0, '120', () => 0.5), 120_000);
  assert.equal(nextRetryDelayMs(settings, 1, 3 * 86400_000 - 1000, undefined, () => 0.5), null);
  assert.equal(parseRetryAfterMs('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:00 GMT')), 60_000);
  assert.equal(parseRetryAfterMs('soon'), null);
});

test('signatures verify with the standardwebhooks reference library', () => {
  const secret = generateSigningSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9+/=]+$/);
  const body = JSON.stringify({ event_type: 'DEPLOYMENT_STARTED', payload: { application_id: 'x' } });
  const ts = Math.floor(Date.now() / 1000);
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': sign(secret, 'msg_1', ts, body) };
  assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  assert.throws(() => new Webhook(generateSigningSecret()).verify(body, headers));
});

test('an attempt: 2xx delivered, 410 gone, refused or too old never retried, anything else retried', () => {
  const answer = (status: number | null, refused = false) => ({ status, retryAfter: undefined, refused });
  const retrySettings = DEFAULT_RETRY_SETTINGS;
  assert.deepEqual(attemptOutcome(retrySettings, answer(204), 1, 0), { ok: true, gone: false, retryInMs: null });
  assert.deepEqual(attemptOutcome(retrySettings, answer(410), 1, 0), { ok: false, gone: true, retryInMs: null });
  assert.deepEqual(attemptOutcome(retrySettings, answer(null, true), 1, 0), { ok: false, gone: false, retryInMs: null });
  for (const status of [500, 429, 404, null]) {
    const { ok, retryInMs } = attemptOutcome(retrySettings, answer(status), 1, 0);
    assert.equal(ok, false);
    assert.ok(retryInMs !== null && retryInMs >= retrySettings.baseDelayMs / 2 && retryInMs <= retrySettings.baseDelayMs * 1.5, String(status));
  }
  assert.equal(attemptOutcome(retrySettings, answer(500), 1, retrySettings.giveUpAfterMs).retryInMs, null);
  assert.ok(attemptOutcome(retrySettings, { status: 503, retryAfter: '120', refused: false }, 1, 0).retryInMs! >= 120_000);
});

test('signature headers verify with the reference library', () => {
  const secret = generateSigningSecret();
  const body = JSON.stringify({ type: 'x', data: { n: 1 } });
  const headers = signatureHeaders(secret, 'msg_abc', body);
  assert.deepEqual(Object.keys(headers), ['webhook-id', 'webhook-timestamp', 'webhook-signature']);
  assert.deepEqual(new Webhook(secret).verify(body, headers), { type: 'x', data: { n: 1 } });
  assert.equal(signatureHeaders(secret, 'msg_abc', body, 1700000000)['webhook-signature'], sign(secret, 'msg_abc', 1700000000, body));
});
