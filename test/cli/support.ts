// Driving the real `berth` binary (bin/berth.mjs) as a child process against a berth listening
// on 127.0.0.1 in this test process (the harness app, simulated engine, deployment workers), with
// its own config directory. Always asynchronous: the server answers from this same event loop.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

export const BERTH = new URL('../../bin/berth.mjs', import.meta.url).pathname;

export interface CliResult { code: number | null; stdout: string; stderr: string }

export interface CliServer {
  t: TestApp;
  url: string;
  org: SeededOrganization;
  /** a config directory of its own for each "user" */
  newConfigDir(): string;
  /** an API call as the organization's token, for setting up what the CLI is then run against; a non-2xx fails the test */
  api(method: string, url: string, body?: unknown): Promise<any>;
  close(): Promise<void>;
}

export async function startCliServer(options: { env?: Record<string, string> } = {}): Promise<CliServer> {
  const t = await startTestApp({ ...(options.env ? { env: options.env } : {}), simulated: { stepMs: 40 } });
  await startDeploymentWorkers(t.ctx);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const org = await seedOrganization(t);
  return {
    t, url, org,
    newConfigDir: () => mkdtempSync(join(tmpdir(), 'berth-cli-')),
    async api(method, url, body) {
      const r = await t.request(method, url, { token: org.token, body });
      assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${r.raw}`);
      return r.body;
    },
    close: () => t.close(),
  };
}

export function cliEnv(configDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: configDir, BERTH_CONFIG_DIR: configDir, NO_COLOR: '1', ...extra };
}

/** runs `berth args…` to completion; `input` is written to its stdin (then closed) */
export function berth(configDir: string, args: string[], options: { input?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BERTH, ...args], { env: cliEnv(configDir, options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`berth ${args.join(' ')} timed out\n${stdout}\n${stderr}`)); }, options.timeoutMs ?? 30_000);
    child.on('exit', (code) => { clearTimeout(timer); setImmediate(() => resolve({ code, stdout, stderr })); });
    child.stdin.end(options.input ?? '');
  });
}

/** creates project → environment → applications through the API, as a user's setup would */
export async function seedShop(s: CliServer, names: { project: string; environment: string }, services: string[]) {
  const call = async (method: string, url: string, body?: unknown) => {
    const r = await s.t.request(method, url, { token: s.org.token, body });
    if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${r.raw}`);
    return r.body;
  };
  const project = await call('POST', `/organization/${s.org.id}/project`, { name: names.project });
  const env = await call('POST', `/project/${project.id}/environment`, { name: names.environment, mode: 'DEVELOPMENT' });
  const ids: Record<string, string> = {};
  for (const name of services) {
    const body = { name, git_repository: { url: 'https://github.com/example/app.git', branch: 'main' }, build_mode: 'DOCKER', ports: [{ internal_port: 8080, publicly_accessible: true }] };
    ids[name] = (await call('POST', `/environment/${env.id}/application`, body)).id;
  }
  return { projectId: project.id as string, environmentId: env.id as string, ids };
}
