// Each provider's signature check over the raw body: a delivery signed as the provider signs it
// passes; a tampered body, a wrong secret, a missing header or a malformed one fails with a reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { pushDelivery, signed } from '../../../test/git-push/fixtures.ts';
import { GIT_WEBHOOK_PROVIDERS, signatureHeaders, verifySignature, type GitWebhookProvider } from './signatures.ts';

const SECRET = 'bgw_s3cret-for-tests';
const COMMIT = '9fceb02d0ae598e95dc970b74767f19372d61af8';
const SIGNATURE_HEADER: Record<GitWebhookProvider, string> = {
  github: 'x-hub-signature-256', gitlab: 'x-gitlab-token', bitbucket: 'x-hub-signature', gitea: 'x-gitea-signature', forgejo: 'x-forgejo-signature',
};

function delivery(provider: GitWebhookProvider) {
  const d = signed(provider, pushDelivery(provider, { web: 'https://git.example.com/acme/shop', commit: COMMIT }), SECRET);
  return { headers: d.headers, body: Buffer.from(d.body) };
}

for (const provider of GIT_WEBHOOK_PROVIDERS) {
  test(`${provider}: a delivery signed with the secret passes`, () => {
    const d = delivery(provider);
    assert.deepEqual(verifySignature(provider, d.headers, d.body, SECRET), { ok: true });
  });

  test(`${provider}: a tampered body, a wrong secret and a missing signature fail`, () => {
    const d = delivery(provider);
    const tampered = Buffer.from(d.body.toString().replace(COMMIT, '0123456789abcdef0123456789abcdef01234567'));
    const verdicts = [
      verifySignature(provider, d.headers, tampered, SECRET),
      verifySignature(provider, d.headers, d.body, 'bgw_another-secret'),
      verifySignature(provider, Object.fromEntries(Object.entries(d.headers).filter(([k]) => !/signature|token/.test(k))), d.body, SECRET),
    ];
    if (provider === 'gitlab') {
      // GitLab sends the secret itself: the body is not signed, a tampered body passes (TLS protects it)
      assert.equal(verdicts[0]!.ok, true);
      verdicts.shift();
    }
    for (const v of verdicts) {
      assert.equal(v.ok, false);
      assert.match((v as { reason: string }).reason, /X-(Hub|Gitlab|Gitea|Forgejo)-(Signature|Token)/);
    }
    assert.match((verdicts.at(-1) as { reason: string }).reason, /missing/);
  });
}

test('github: the signature must be sha256=<hex>; the legacy SHA-1 header alone is not enough', () => {
  const body = Buffer.from('{"zen":"ok"}');
  const hex = createHmac('sha256', SECRET).update(body).digest('hex');
  assert.equal(verifySignature('github', { 'x-hub-signature-256': `sha256=${hex}` }, body, SECRET).ok, true);
  assert.equal(verifySignature('github', { 'x-hub-signature-256': `sha256=${hex.toUpperCase()}` }, body, SECRET).ok, true, 'hex case does not matter');
  assert.equal(verifySignature('github', { 'x-hub-signature-256': hex }, body, SECRET).ok, false, 'the prefix is required');
  const sha1 = createHmac('sha1', SECRET).update(body).digest('hex');
  assert.equal(verifySignature('github', { 'x-hub-signature': `sha1=${sha1}` }, body, SECRET).ok, false);
  assert.equal(verifySignature('github', { 'x-hub-signature-256': 'sha256=' }, body, SECRET).ok, false, 'an empty signature');
});

test('gitea/forgejo: X-Forgejo-Signature is the one checked when present; a good X-Gitea-Signature does not rescue a bad one', () => {
  const body = Buffer.from('{"ref":"refs/heads/main"}');
  const good = signatureHeaders('gitea', body, SECRET)['x-gitea-signature']!;
  assert.equal(verifySignature('forgejo', { 'x-gitea-signature': good }, body, SECRET).ok, true, 'a Gitea-compatible sender');
  assert.equal(verifySignature('gitea', { 'x-forgejo-signature': good }, body, SECRET).ok, true, 'Forgejo at the gitea URL');
  assert.equal(verifySignature('forgejo', { 'x-forgejo-signature': '00'.repeat(32), 'x-gitea-signature': good }, body, SECRET).ok, false);
});

test('bitbucket: unsigned deliveries (a webhook without a secret) are refused and say why', () => {
  const v = verifySignature('bitbucket', { 'x-event-key': 'repo:push' }, Buffer.from('{}'), SECRET);
  assert.equal(v.ok, false);
  assert.match((v as { reason: string }).reason, /X-Hub-Signature header is missing.*secret/);
});

test('every provider sends its signature in its own header', () => {
  for (const provider of GIT_WEBHOOK_PROVIDERS) assert.ok(SIGNATURE_HEADER[provider]! in signatureHeaders(provider, '{}', SECRET), provider);
});
