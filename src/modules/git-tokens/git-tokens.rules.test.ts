// Unit tests of the git token rules: token, workspace, API URL and expiry checks, the basic-auth
// user name per provider, job types in the associated services, and the in-use message.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../lib/errors.ts';
import {
  associatedServiceType, basicAuthUsername, checkTokenValue, inUseMessage, normalizeApiUrl, normalizeExpiry, normalizeWorkspace,
} from './git-tokens.rules.ts';

const refused = (fn: () => unknown, message: RegExp) => assert.throws(fn, (err: unknown) => err instanceof AppError && err.status === 400 && message.test(err.message));

describe('git token rules', () => {
  test('a token is printable ASCII without spaces or line breaks (it travels in an HTTP header)', () => {
    for (const ok of ['ghp_abc123', 'glpat-XyZ_09', 'ATBB~!@#$%^&*()']) checkTokenValue(ok);
    for (const bad of ['two words', 'line\nbreak', 'cr\rlf', 'tab\t', 'é', '\u0000']) refused(() => checkTokenValue(bad), /printable ASCII/);
  });

  test('the workspace is required for BITBUCKET only; blank is none', () => {
    assert.equal(normalizeWorkspace('BITBUCKET', ' team '), 'team');
    assert.equal(normalizeWorkspace('GITHUB', '  '), null);
    assert.equal(normalizeWorkspace('GITLAB', undefined), null);
    refused(() => normalizeWorkspace('BITBUCKET', null), /workspace is required/);
  });

  test('the API URL is empty or http(s) without credentials', () => {
    assert.equal(normalizeApiUrl(undefined), '');
    assert.equal(normalizeApiUrl(' https://gitlab.example.com/api/v4 '), 'https://gitlab.example.com/api/v4');
    refused(() => normalizeApiUrl('gitlab.example.com'), /is not a URL/);
    refused(() => normalizeApiUrl('ssh://gitlab.example.com'), /http or https/);
    refused(() => normalizeApiUrl('https://u:p@gitlab.example.com'), /credentials/);
  });

  test('an expiry becomes an ISO instant between 1970 and 9999', () => {
    assert.equal(normalizeExpiry(null), null);
    assert.equal(normalizeExpiry('2027-01-02T03:04:05+02:00'), '2027-01-02T01:04:05.000Z');
    refused(() => normalizeExpiry('0001-01-01T00:00:00Z'), /between 1970 and 9999/);
    refused(() => normalizeExpiry('soon'), /between 1970 and 9999/);
  });

  test('the basic-auth user name follows the provider', () => {
    assert.equal(basicAuthUsername('GITHUB'), 'x-access-token');
    assert.equal(basicAuthUsername('GITLAB'), 'oauth2');
    assert.equal(basicAuthUsername('BITBUCKET'), 'x-token-auth');
    assert.equal(basicAuthUsername('GENERIC'), 'x-access-token');
  });

  test('a job is CRON or LIFECYCLE in the associated services; other types keep their name', () => {
    assert.equal(associatedServiceType('JOB', { schedule: { cronjob: { scheduled_at: '* * * * *' } } }), 'CRON');
    assert.equal(associatedServiceType('JOB', { schedule: { on_start: {} } }), 'LIFECYCLE');
    assert.equal(associatedServiceType('APPLICATION', {}), 'APPLICATION');
    assert.equal(associatedServiceType('AGENTIC_WORKFLOW', {}), 'AGENTIC_WORKFLOW');
  });

  test('the in-use message names the services (ten at most, then how many more)', () => {
    const use = (i: number) => ({ serviceName: `s${i}`, serviceType: 'APPLICATION', projectName: 'p', environmentName: 'e' });
    assert.equal(inUseMessage('gh', [use(1)]), "Git token 'gh' is used by 1 service: 's1' (APPLICATION in p/e); give them another token (or none) first");
    const many = inUseMessage('gh', Array.from({ length: 12 }, (_, i) => use(i)));
    assert.match(many, /^Git token 'gh' is used by 12 services: 's0' .*'s9' \(APPLICATION in p\/e\) and 2 more;/);
    assert.doesNotMatch(many, /'s10'/);
  });
});
