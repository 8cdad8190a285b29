// Unit tests of the base URL rule shared by LLM providers and workflows' model.settings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL_MAX_LENGTH, baseUrlProblem } from './base-url.ts';

test('http and https URLs, with or without a path or port, are base URLs', () => {
  for (const ok of ['https://api.anthropic.com', 'http://litellm:4000', 'https://proxy.corp.example/anthropic/', 'http://10.0.0.5:8080/v0', 'http://[::1]:4000']) {
    assert.equal(baseUrlProblem(ok), null, ok);
  }
});

test('every other value names what is wrong', () => {
  const cases: Array<[string, RegExp]> = [
    ['not a url', /must be an http or https URL .*got "not a url"/],
    ['ftp://files.example', /got the scheme "ftp"/],
    ['file:///etc/passwd', /got the scheme "file"/],
    [' https://x.example', /white space/],
    ['https://x.example\n', /white space/],
    ['https://user:pw@x.example', /user name or password/],
    ['https://x.example/?key=1', /query or fragment/],
    ['https://x.example/#frag', /query or fragment/],
    ['https://x.example/?', /query or fragment/],
    [`https://x.example/${'a'.repeat(BASE_URL_MAX_LENGTH)}`, /at most 2048 characters/],
  ];
  for (const [value, re] of cases) assert.match(baseUrlProblem(value) ?? 'accepted', re, value);
});

test('a refused URL with credentials is not echoed back', () => {
  assert.doesNotMatch(baseUrlProblem('https://me:SECRET@x.example')!, /SECRET/);
});
