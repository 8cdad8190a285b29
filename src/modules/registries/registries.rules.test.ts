// Unit tests of the registry rules: default URLs per kind and the config split.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultRegistryUrl, splitConfig } from './registries.rules.ts';

describe('container registry rules', () => {
  test('default URL per kind; none for kinds without a fixed address', () => {
    assert.equal(defaultRegistryUrl('DOCKER_HUB', {}), 'https://docker.io');
    assert.equal(defaultRegistryUrl('GITHUB_CR', {}), 'https://ghcr.io');
    assert.equal(defaultRegistryUrl('SCALEWAY_CR', { region: 'fr-par' }), 'https://rg.fr-par.scw.cloud');
    assert.equal(defaultRegistryUrl('SCALEWAY_CR', {}), null);
    assert.equal(defaultRegistryUrl('ECR', { region: 'eu-west-3' }), null);
    assert.equal(defaultRegistryUrl('GENERIC_CR', {}), null);
  });

  test('credentials go to the secret part, the rest stays public', () => {
    assert.deepEqual(splitConfig({ username: 'u', password: 'p', region: 'eu', access_key_id: 'AK', token_lifetime_seconds: 60 }), {
      publicPart: { region: 'eu', token_lifetime_seconds: 60 },
      secretPart: { username: 'u', password: 'p', access_key_id: 'AK' },
    });
  });
});
