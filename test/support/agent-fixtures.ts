// Fixtures for agent-run engine tests, all built locally (no registry, no internet):
// - agentBaseImage: `berth-test/agent-base:bookworm`, a debootstrap bookworm minbase root with
//   ca-certificates, git, curl and tinyproxy (debian-root.ts), plus the npm server-everything MCP
//   server at /opt/mcp/everything (npm-installed once on the host under the test cache). No node:
//   berth adds claude and node on top. A stdio MCP entry starts the server with
//   {"command":"node","args":["/opt/mcp/everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js"]}
//   (EVERYTHING_STDIO_ENTRY; stdio is its default transport).
// - startScriptedModel: the scripted Anthropic Messages endpoint (scripted-model/server.mjs says
//   how scripts work) in a container on a test network, at http://<alias>:8080 from that network
//   and at the container's IP from the test process.
// - startHttpMcpServer: server-everything over Streamable HTTP (scripted-model/mcp-http.mjs) at
//   http://<alias>:8080/mcp, recording request headers, 401 without a required header.
// - startOutputReceiver: an HTTP server on 127.0.0.1 recording POSTs.
// - removeByLabel: removes the containers and networks these fixtures made in this process.
// Both servers run in `berth-test/scripted-model:1` (the base + the project's node binary + the
// two scripts); images are made once per process and rebuilt only when their inputs change.
import { execFile } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { buildImage } from '../../src/engine/docker/build.ts';
import { demux } from '../../src/engine/docker/replicas.ts';
import { exists, hasImage, importRoot, rootTarball, TEST_CACHE_DIR } from './debian-root.ts';
import { TEST_LABEL } from './docker.ts';

const run = promisify(execFile);
export const AGENT_BASE_IMAGE = 'berth-test/agent-base:bookworm';
export const SCRIPTED_MODEL_IMAGE = 'berth-test/scripted-model:1';
const ROOT_IMAGE = 'berth-test/debian-agent:bookworm';
const ROOT_PACKAGES = ['ca-certificates', 'git', 'curl', 'tinyproxy'];
const MCP_EVERYTHING_VERSION = '2026.8.31';
/** pinned beside server-everything (which asks for ^1.30.0); mcp-http.mjs uses its transport */
const MCP_SDK_VERSION = '1.32.2';
const EVERYTHING_ENTRY_PATH = '/opt/mcp/everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js';
export const EVERYTHING_STDIO_ENTRY: { command: string; args: string[] } = { command: 'node', args: [EVERYTHING_ENTRY_PATH] };
const PORT = 8080;
const NODE_BINARY = new URL('../../node_modules/node/bin/node', import.meta.url).pathname;
const SCRIPTS_DIR = new URL('./scripted-model/', import.meta.url).pathname;
const OWNER = `${hostname()}:${process.pid}`;
const silent = async () => {};

/** the labels of what these fixtures start: role under TEST_LABEL, and this process as owner */
export function fixtureLabels(role: string): Record<string, string> {
  return { [TEST_LABEL]: role, 'berth-test.fixture': 'agent', 'berth-test.owner': OWNER };
}

const once = new Map<string, Promise<unknown>>();
/** one promise per key for the process; a failure is forgotten so the next caller tries again */
function shared<T>(key: string, make: () => Promise<T>): Promise<T> {
  if (!once.has(key)) once.set(key, make().catch((err) => { once.delete(key); throw err; }));
  return once.get(key) as Promise<T>;
}

/** an image that exists with `inputs` in its content label (else it is (re)built) */
async function current(docker: Docker, ref: string, inputs: string): Promise<boolean> {
  const info = await docker.getImage(ref).inspect().catch(() => null);
  return info?.Config?.Labels?.['berth-test.inputs'] === inputs;
}

/** builds `ref` (labelled with its inputs) from a Dockerfile of `lines` in a temp context that `fill` populates */
async function build(docker: Docker, ref: string, inputs: string, lines: string[], fill: (dir: string) => Promise<unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'berth-test-agent-image-'));
  try {
    await fill(dir);
    await writeFile(join(dir, 'Dockerfile'), [...lines, ''].join('\n'));
    const labels = { [TEST_LABEL]: ref.split(/[/:]/)[1]!, 'berth-test.inputs': inputs };
    await buildImage(docker, { contextDir: dir, dockerfilePath: null, tag: ref, buildArgs: {}, labels }, silent, AbortSignal.timeout(600_000));
    return ref;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** server-everything and the SDK installed once on the host under the test cache; its directory */
function mcpInstall(): Promise<string> {
  return shared('mcp-install', async () => {
    const dir = join(TEST_CACHE_DIR, `mcp-everything-${MCP_EVERYTHING_VERSION}-sdk-${MCP_SDK_VERSION}`);
    if (await exists(join(dir, 'node_modules/@modelcontextprotocol/server-everything/package.json'))) return dir;
    const temp = `${dir}.${process.pid}.tmp`;
    await rm(temp, { recursive: true, force: true });
    await mkdir(temp, { recursive: true });
    try {
      await run('npm', ['install', '--prefix', temp, '--no-audit', '--no-fund',
        `@modelcontextprotocol/server-everything@${MCP_EVERYTHING_VERSION}`, `@modelcontextprotocol/sdk@${MCP_SDK_VERSION}`],
      { maxBuffer: 16 * 1024 * 1024, timeout: 10 * 60_000 });
      await rename(temp, dir).catch(async (err) => {
        if (!(await exists(dir))) throw err; // another process finished first: use its copy
      });
      return dir;
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  });
}

/**
 * `berth-test/agent-base:bookworm` (what tests give berth as AGENT_BASE_IMAGE). Cold: debootstrap
 * and npm install, a few minutes; with the cache: an import and a build, seconds; made: an inspect.
 */
export function agentBaseImage(docker: Docker): Promise<string> {
  return shared('agent-base', async () => {
    const inputs = `${ROOT_PACKAGES.join(',')} everything@${MCP_EVERYTHING_VERSION} sdk@${MCP_SDK_VERSION}`;
    if (await current(docker, AGENT_BASE_IMAGE, inputs)) return AGENT_BASE_IMAGE;
    const install = mcpInstall();
    install.catch(() => {}); // awaited below; a failure must not go unhandled meanwhile
    if (!(await hasImage(docker, ROOT_IMAGE))) await importRoot(docker, await rootTarball(ROOT_PACKAGES), ROOT_IMAGE);
    return build(docker, AGENT_BASE_IMAGE, inputs, [
      `FROM ${ROOT_IMAGE}`,
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8',
      'ADD everything.tar /opt/mcp/everything/',
    ], async (dir) => {
      // one tar for ADD to unpack: faster on the daemon than COPY of ~4,000 small files
      await run('tar', ['-C', await install, '--owner=0', '--group=0', '--numeric-owner', '-cf', join(dir, 'everything.tar'), '.']);
    });
  });
}

/** `berth-test/scripted-model:1`: the agent base + node at /usr/local/bin/node + the two servers in /opt/scripted-model */
function scriptedModelImage(docker: Docker): Promise<string> {
  return shared('scripted-model', async () => {
    const base = await docker.getImage(await agentBaseImage(docker)).inspect();
    const node = await stat(NODE_BINARY);
    const hash = createHash('sha256').update(`${base.Id} ${node.size} ${node.mtimeMs}`);
    for (const name of ['server.mjs', 'mcp-http.mjs']) hash.update(await readFile(join(SCRIPTS_DIR, name)));
    const inputs = hash.digest('hex').slice(0, 16);
    if (await current(docker, SCRIPTED_MODEL_IMAGE, inputs)) return SCRIPTED_MODEL_IMAGE;
    return build(docker, SCRIPTED_MODEL_IMAGE, inputs, [
      `FROM ${AGENT_BASE_IMAGE}`,
      'COPY node /usr/local/bin/node',
      'COPY server.mjs mcp-http.mjs /opt/scripted-model/',
      'RUN ln -s /opt/mcp/everything/node_modules /opt/scripted-model/node_modules',
      `ENV PORT=${PORT}`,
      `EXPOSE ${PORT}`,
      'CMD ["node", "/opt/scripted-model/server.mjs"]',
    ], async (dir) => {
      await copyFile(NODE_BINARY, join(dir, 'node'));
      await chmod(join(dir, 'node'), 0o755);
      for (const name of ['server.mjs', 'mcp-http.mjs']) await copyFile(join(SCRIPTS_DIR, name), join(dir, name));
    });
  });
}

/** a plain bridge network named `name` (labelled as this process's when it makes it) */
function ensureNetwork(docker: Docker, name: string): Promise<void> {
  return shared(`network:${name}`, async () => {
    if (await docker.getNetwork(name).inspect().then(() => true, () => false)) return;
    await docker.createNetwork({ Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: fixtureLabels('agent-network') })
      .catch((err: { statusCode?: number }) => { if (err.statusCode !== 409) throw err; });
  });
}

/** a container's stdout and stderr so far (non-TTY log frames put back together) */
export async function containerOutput(container: Docker.Container): Promise<string> {
  return demux(await container.logs({ stdout: true, stderr: true, follow: false }) as unknown as Buffer);
}

/** one of the two servers of the scripted-model image on the network, answering at hostUrl */
async function startServer(docker: Docker, o: { network: string; alias: string; role: string; script: string; env: string[] }):
  Promise<{ hostUrl: string; stop(): Promise<void> }> {
  const image = await scriptedModelImage(docker);
  await ensureNetwork(docker, o.network);
  const container = await docker.createContainer({
    Image: image, name: `berth-test-${o.role}-${o.alias}-${process.pid}-${randomBytes(3).toString('hex')}`,
    Labels: fixtureLabels(o.role), Cmd: ['node', `/opt/scripted-model/${o.script}`], Env: o.env,
    HostConfig: { NetworkMode: o.network, Memory: 512 * 1024 * 1024 },
    NetworkingConfig: { EndpointsConfig: { [o.network]: { Aliases: [o.alias] } } },
  });
  const stop = () => container.remove({ force: true, v: true }).catch((err: { statusCode?: number }) => { if (err.statusCode !== 404) throw err; });
  try {
    await container.start();
    const ip = (await container.inspect()).NetworkSettings.Networks[o.network]?.IPAddress;
    if (!ip) throw new Error(`${o.role} container has no address on network ${o.network}`);
    const hostUrl = `http://${ip}:${PORT}`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (await fetch(`${hostUrl}/__requests`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false)) break;
      const state = (await container.inspect()).State;
      if (!state.Running || Date.now() > deadline) {
        throw new Error(`${o.role} did not start (${state.Running ? 'not answering' : `exited ${state.ExitCode}`}): ${await containerOutput(container)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return { hostUrl, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function call(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res;
}

/** one scripted answer: text (end_turn), a tool call (tool_use), or both; sleep_ms waits before answering */
export interface Step { text?: string; tool_use?: { name: string; input: Record<string, unknown> }; sleep_ms?: number }

/** a request the scripted model received; path keeps the query (e.g. /v1/messages?beta=true), header names are lower case */
export interface RecordedRequest { method: string; path: string; headers: Record<string, string>; body: any }

export interface ScriptedModel {
  /** what ANTHROPIC_BASE_URL is inside the network: http://<alias>:8080 */
  baseUrlInNetwork: string;
  /** the same server from the test process (the container's IP on the network) */
  hostUrl: string;
  /** replaces every script: name (the `[script:NAME]` marker) → steps */
  setScripts(scripts: Record<string, Step[]>): Promise<void>;
  requests(): Promise<RecordedRequest[]>;
  /** forgets the recorded requests and the scripts */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export async function startScriptedModel(docker: Docker, opts: { network: string; alias: string }): Promise<ScriptedModel> {
  const { hostUrl, stop } = await startServer(docker, { ...opts, role: 'scripted-model', script: 'server.mjs', env: [] });
  return scriptedModelClient(`http://${opts.alias}:${PORT}`, hostUrl, stop);
}

/** the scripted model's control API (scripts, recorded requests) at hostUrl, wherever the server runs */
export function scriptedModelClient(baseUrlInNetwork: string, hostUrl: string, stop: () => Promise<void>): ScriptedModel {
  const setScripts = async (scripts: Record<string, Step[]>) => {
    await call(`${hostUrl}/__scripts`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(scripts) });
  };
  return {
    baseUrlInNetwork,
    hostUrl,
    setScripts,
    requests: async () => (await call(`${hostUrl}/__requests`)).json() as Promise<RecordedRequest[]>,
    reset: async () => {
      await call(`${hostUrl}/__requests`, { method: 'DELETE' });
      await setScripts({});
    },
    stop,
  };
}

export interface HttpMcpServer {
  /** http://<alias>:8080/mcp */
  urlInNetwork: string;
  hostUrl: string;
  /** every request it received (401s included), oldest first */
  requests(): Promise<McpRequest[]>;
  stop(): Promise<void>;
}
interface McpRequest { method: string; path: string; headers: Record<string, string> }

export async function startHttpMcpServer(docker: Docker, opts: { network: string; alias: string; requireHeader?: { name: string; value: string } }): Promise<HttpMcpServer> {
  const env = opts.requireHeader ? [`REQUIRE_HEADER_NAME=${opts.requireHeader.name}`, `REQUIRE_HEADER_VALUE=${opts.requireHeader.value}`] : [];
  const { hostUrl, stop } = await startServer(docker, { network: opts.network, alias: opts.alias, role: 'mcp-http', script: 'mcp-http.mjs', env });
  return {
    urlInNetwork: `http://${opts.alias}:${PORT}/mcp`,
    hostUrl: `${hostUrl}/mcp`,
    requests: async () => (await call(`${hostUrl}/__requests`)).json() as Promise<McpRequest[]>,
    stop,
  };
}

export interface OutputReceiver {
  url: string;
  received: Array<{ headers: Record<string, string>; body: any }>;
  /** resolves once `n` POSTs arrived; rejects after `ms` (default 10 s) */
  waitFor(n: number, ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** records POSTs (body parsed as JSON when it is JSON) on 127.0.0.1:<free port>, answers 200 to everything */
export async function startOutputReceiver(): Promise<OutputReceiver> {
  const received: OutputReceiver['received'] = [];
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    if (req.method === 'POST') {
      let body: any = raw;
      try { body = JSON.parse(raw); } catch { /* kept as text */ }
      received.push({ headers: req.headers as Record<string, string>, body });
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    async waitFor(n, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`output receiver: ${received.length} of ${n} POSTs after ${ms} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/**
 * Removes the containers these fixtures started (any `fixtureLabels` role) and the networks they
 * made, those of this process only unless `everyProcess` (to sweep what crashed runs left). Tries
 * every one, then throws what failed (a network still in use by other containers stays).
 */
export async function removeByLabel(docker: Docker, opts: { everyProcess?: boolean } = {}): Promise<void> {
  const label = ['berth-test.fixture=agent', ...(opts.everyProcess ? [] : [`berth-test.owner=${OWNER}`])];
  const failures: string[] = [];
  const attempt = (what: string) => (err: { statusCode?: number; message?: string }) => {
    if (err.statusCode !== 404) failures.push(`${what}: ${err.message ?? err}`);
  };
  const containers = await docker.listContainers({ all: true, filters: { label } });
  await Promise.all(containers.map((c) => docker.getContainer(c.Id).remove({ force: true, v: true }).catch(attempt(`container ${c.Names[0] ?? c.Id}`))));
  for (const n of await docker.listNetworks({ filters: { label } })) {
    once.delete(`network:${n.Name}`);
    await docker.getNetwork(n.Id).remove().catch(attempt(`network ${n.Name}`));
  }
  if (failures.length) throw new Error(`removeByLabel left ${failures.length}: ${failures.join('; ')}`);
}
