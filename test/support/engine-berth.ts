// A real berth process on the Docker engine for engine flows: its own data directory (or a
// fresh PostgreSQL database), its own HAProxy ingress on a free loopback port (a host process, or a
// container with INGRESS_RUNTIME=container; close() removes either), a known token, and
// helpers to call the API, to request a service through the ingress by host name (Node's fetch
// cannot set Host), and to receive organization webhooks on loopback.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import type Docker from 'dockerode';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopIngress } from '../../src/engine/ingress/haproxy.ts';
import { ingressContainerName } from '../../src/engine/ingress/haproxy-container.ts';
import { dockerAt } from './docker.ts';
import { freshPostgresUrl } from './db.ts';
import { eventually } from './harness.ts';
import { freePort, startBerth, type BerthProcess } from './processes.ts';

export interface EngineBerth {
  process: BerthProcess;
  token: string;
  ingressPort: number;
  env: Record<string, string>;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** stops the berth process (the ingress keeps serving); restart() starts a new one on the same data */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** another process (e.g. a second worker) on the same database */
  extra(role: 'api' | 'worker'): Promise<BerthProcess>;
  close(): Promise<void>;
  settle(deploymentId: string, timeoutMs?: number): Promise<any>;
}

export async function startEngineBerth(dockerHost: string, extraEnv: Record<string, string> = {}): Promise<EngineBerth> {
  const token = `engine-test-${randomBytes(16).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-engine-'));
  // a test that must know the port before berth starts (pebble fetches HTTP-01 tokens from it) gives INGRESS_PORT
  const ingressPort = extraEnv.INGRESS_PORT ? Number(extraEnv.INGRESS_PORT) : await freePort();
  const databaseUrl = await freshPostgresUrl();
  const env: Record<string, string> = {
    ENGINE: 'docker', DOCKER_HOST: dockerHost, DATA_DIR: dataDir, BOOTSTRAP_TOKEN: token, LOG_LEVEL: 'warn',
    INGRESS_PORT: String(ingressPort), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // tests poll while containers work (ten runs at once poll ~30 times a second): the rate limit is not under test here
    RATE_LIMIT_PER_HOUR: '1000000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, ENCRYPTION_KEY: randomBytes(32).toString('base64') } : {}),
    ...extraEnv,
  };
  let proc = await startBerth('all', env);
  const extras: BerthProcess[] = [];
  const self: EngineBerth = {
    get process() { return proc; },
    token, ingressPort, env,
    async api(method, path, body) {
      const res = await fetch(`${proc.url}${path}`, {
        method, headers: { authorization: `Token ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try { parsed = JSON.parse(text); } catch { /* not JSON */ }
      return { status: res.status, body: parsed };
    },
    async stop() { await proc.stop(); },
    async restart() { proc = await startBerth('all', env); },
    async extra(role) {
      // startBerth waits for the `berth started` line, logged at info
      const p = await startBerth(role, { ...env, LOG_LEVEL: 'info' });
      extras.push(p);
      return p;
    },
    async close() {
      for (const p of extras) await p.stop();
      await proc.stop();
      await stopIngress({ dataDir });
      // INGRESS_RUNTIME=container (or auto on a machine without haproxy): the ingress is a container of this data dir
      await dockerAt(dockerHost).getContainer(ingressContainerName(dataDir)).remove({ force: true }).catch(() => {});
    },
    async settle(deploymentId, timeoutMs = 180_000) {
      return eventually(async () => {
        const r = await self.api('GET', `/deployment/${deploymentId}`);
        return r.body?.finished ? r.body : null;
      }, timeoutMs, 300);
    },
  };
  return self;
}

/** GET through the ingress with a Host header; status and body, or status 0 when the connection failed */
export function viaIngress(port: number, host: string, path = '/', agent?: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { host }, agent, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: 0, body: '' }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: '' }));
  });
}

/** the host name of a public link URL (http://name.localhost:port → name.localhost) */
export function hostOf(url: string): string {
  return new URL(url).hostname;
}

/** an HTTP receiver for organization webhooks on loopback; collects the JSON bodies */
export async function webhookReceiver(): Promise<{ url: string; bodies: any[]; close(): Promise<void> }> {
  const bodies: any[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d) => { text += d; });
    req.on('end', () => {
      try { bodies.push(JSON.parse(text)); } catch { /* ignore */ }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, bodies, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * A test's environment removed as a user removes it (DELETE, its services uninstalled), then what
 * a failed test left behind removed by force, so no replica outlives the run.
 */
export async function removeEnvironment(berth: EngineBerth | undefined, docker: Docker, envId: string | undefined): Promise<void> {
  if (!berth || !envId) return;
  const left = async () => docker.listContainers({ all: true, filters: { label: [`berth.environment_id=${envId}`] } });
  await berth.api('DELETE', `/environment/${envId}`).catch(() => {});
  await eventually(async () => (await left()).length === 0, 60_000).catch(() => {});
  for (const c of await left()) await docker.getContainer(c.Id).remove({ force: true, v: true }).catch(() => {});
}
