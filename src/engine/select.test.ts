import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../config/config.ts';
import { selectEngine } from './select.ts';

const quiet = { info() {}, warn() {} };
const nowhere = 'unix:///nonexistent/berth-test/docker.sock';

test('ENGINE=auto with no daemon answering falls back to the simulated engine and says why', async () => {
  const { driver, description } = await selectEngine(loadConfig({ ENGINE: 'auto', DOCKER_HOST: nowhere }), quiet);
  assert.equal(driver.name, 'simulated');
  assert.equal(driver.real, false);
  assert.match(description, /no Docker daemon answers at DOCKER_HOST=unix:\/\/\/nonexistent/);
});

test('ENGINE=docker with no daemon answering stops the start with one line naming DOCKER_HOST', async () => {
  await assert.rejects(selectEngine(loadConfig({ ENGINE: 'docker', DOCKER_HOST: nowhere }), quiet),
    (err: Error) => err instanceof ConfigError && /DOCKER_HOST=unix:\/\/\/nonexistent/.test(err.message) && !err.message.includes('\n'));
});

test('ENGINE=simulated is taken as said', async () => {
  const { driver } = await selectEngine(loadConfig({ ENGINE: 'simulated' }), quiet);
  assert.equal(driver.name, 'simulated');
});
