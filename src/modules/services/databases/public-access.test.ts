// Where clients are told to connect to a PUBLIC database (decision 0333), and the range its port
// comes from (DATABASE_PUBLIC_PORTS).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../../config/config.ts';
import { publishAddress } from '../../../lib/net.ts';
import { publicHost } from './public-access.ts';

describe('PUBLIC database addresses', () => {
  test('the host is INGRESS_HOST, the one address the port is published on; INGRESS_DOMAIN when that is every address', () => {
    assert.equal(publicHost({ ingressHost: '127.0.0.1', ingressDomain: 'localhost' }), '127.0.0.1');
    assert.equal(publicHost({ ingressHost: '192.0.2.10', ingressDomain: 'apps.example.com' }), '192.0.2.10');
    for (const every of ['0.0.0.0', '::', '[::]', '']) {
      assert.equal(publicHost({ ingressHost: every, ingressDomain: 'apps.example.com' }), 'apps.example.com', every);
    }
    assert.equal(publishAddress('[::]'), '::');
    assert.equal(publishAddress('0.0.0.0'), '0.0.0.0');
  });

  test('DATABASE_PUBLIC_PORTS: 30000-30999 by default, FROM-TO within 1-65535', () => {
    assert.deepEqual(loadConfig({}).databasePublicPorts, { from: 30000, to: 30999 });
    assert.deepEqual(loadConfig({ DATABASE_PUBLIC_PORTS: '5433-5433' }).databasePublicPorts, { from: 5433, to: 5433 });
    for (const bad of ['5000', '5001-5000', '0-10', '1-70000', 'a-b', '10-20-30']) {
      assert.throws(() => loadConfig({ DATABASE_PUBLIC_PORTS: bad }), (err: unknown) => err instanceof ConfigError && err.message.includes('DATABASE_PUBLIC_PORTS'), bad);
    }
  });
});
