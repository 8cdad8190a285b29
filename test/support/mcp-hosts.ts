// Real MCP hosts run on the test machine against a berth listening on loopback:
// - startLocalScriptedModel: the scripted Anthropic endpoint (scripted-model/server.mjs) as a child
//   process of the test on a free port, reached at http://127.0.0.1:<port> (no Docker).
// - claudeBinary / runClaude: Claude Code's native binary from node_modules, headless
//   (`-p --output-format stream-json --verbose`), with an MCP config file, an empty HOME and cwd,
//   an environment of its own (no proxy variables) and a hard timeout; answers its stream-json events.
// - installInspector / runInspector: `@modelcontextprotocol/inspector` installed once per machine
//   under the test cache (never into the project's node_modules) and its `--cli` mode run with the
//   project's node.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freeLoopbackPort } from '../../src/lib/processes.ts';
import type { RecordedRequest, Step } from './agent-fixtures.ts';
import { exists, TEST_CACHE_DIR } from './debian-root.ts';

const execFileP = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;

export interface LocalScriptedModel {
  /** ANTHROPIC_BASE_URL for a host process: http://127.0.0.1:<port> */
  url: string;
  setScripts(scripts: Record<string, Step[]>): Promise<void>;
  requests(): Promise<RecordedRequest[]>;
  stop(): Promise<void>;
}

async function ok(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res;
}

/** waits for `child` to exit (at most `ms`, then SIGKILL) */
function ended(child: ChildProcess, ms = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), ms);
    child.once('exit', () => { clearTimeout(kill); resolve(); });
  });
}

export async function startLocalScriptedModel(): Promise<LocalScriptedModel> {
  const port = await freeLoopbackPort();
  const child = spawn(process.execPath, [join(root, 'test/support/scripted-model/server.mjs')], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await ended(child);
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  while (!out.includes('listening')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the scripted model did not start on ${port}: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    setScripts: async (scripts) => {
      await ok(`${url}/__scripts`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(scripts) });
    },
    requests: async () => (await ok(`${url}/__requests`)).json() as Promise<RecordedRequest[]>,
    stop,
  };
}

/** every text of a Messages API request (system prompt, messages, tool results) joined */
export function requestText(body: any): string {
  return JSON.stringify([body?.system ?? null, body?.messages ?? []]);
}

/** the text a tool_result block carries (a string, or text blocks) */
export function toolResultText(block: any): string {
  if (typeof block?.content === 'string') return block.content;
  if (Array.isArray(block?.content)) return block.content.map((c: any) => (typeof c?.text === 'string' ? c.text : '')).join('');
  return '';
}

/** Claude Code's native binary for this platform, from node_modules; throws saying why when absent */
export function claudeBinary(): string {
  const pkg = `@anthropic-ai/claude-code-${process.platform}-${process.arch}`;
  const file = process.platform === 'win32' ? 'claude.exe' : 'claude';
  const candidates = [pkg, `${pkg}-musl`].map((p) => join(root, 'node_modules', p, file));
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new Error(`Claude Code's native binary is missing (looked for ${candidates.join(', ')}): @anthropic-ai/claude-code in package.json `
      + `installs it through its optional dependency ${pkg}; run npm ci without --omit=optional`);
  }
  return found;
}

export interface ClaudeRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** stream-json events, one per stdout line (lines that are not JSON are kept as { raw }) */
  events: any[];
  stderr: string;
  ms: number;
}

export interface ClaudeOptions {
  prompt: string;
  modelUrl: string;
  mcpServers: Record<string, unknown>;
  allowedTools: string[];
  maxTurns?: number;
  timeoutMs?: number;
}

/**
 * One headless Claude Code run in an empty temp dir (its HOME and cwd, removed after): the prompt
 * on stdin, the MCP servers from a config file with --strict-mcp-config, tool search off so MCP
 * tools are listed to the model, no proxy variables. Killed after timeoutMs (default 60 s).
 */
export async function runClaude(o: ClaudeOptions): Promise<ClaudeRun> {
  const bin = claudeBinary();
  const dir = await mkdtemp(join(tmpdir(), 'berth-test-claude-'));
  const home = join(dir, 'home');
  const work = join(dir, 'work');
  await mkdir(home);
  await mkdir(work);
  const config = join(dir, 'mcp.json');
  await writeFile(config, JSON.stringify({ mcpServers: o.mcpServers }));
  const started = Date.now();
  try {
    const child = spawn(bin, [
      '-p', '--output-format', 'stream-json', '--verbose', '--mcp-config', config, '--strict-mcp-config',
      '--allowedTools', o.allowedTools.join(','), '--max-turns', String(o.maxTurns ?? 6),
    ], {
      cwd: work, stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        PATH: '/usr/local/bin:/usr/bin:/bin', HOME: home, ANTHROPIC_BASE_URL: o.modelUrl, ANTHROPIC_API_KEY: 'test-key',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', ENABLE_TOOL_SEARCH: 'false', DISABLE_AUTOUPDATER: '1',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => { stdout += d; });
    child.stderr!.on('data', (d) => { stderr += d; });
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 60_000);
    child.stdin!.end(o.prompt);
    const { code, signal } = await exit.finally(() => clearTimeout(timer));
    const events = stdout.split('\n').filter((l) => l.trim() !== '').map((l) => {
      try { return JSON.parse(l); } catch { return { raw: l }; }
    });
    return { code, signal, events, stderr, ms: Date.now() - started };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** the MCP Inspector release the conformance test runs (its v2 `--cli` mode; see inspector.test.ts) */
export const INSPECTOR_VERSION = '2.12.0';
const INSPECTOR_ENTRY = 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js';

let inspectorInstall: Promise<string> | undefined;
/** the inspector installed once per machine under the test cache; its launcher script */
export function installInspector(): Promise<string> {
  inspectorInstall ??= (async () => {
    const dir = join(TEST_CACHE_DIR, `mcp-inspector-${INSPECTOR_VERSION}`);
    const entry = join(dir, INSPECTOR_ENTRY);
    if (await exists(entry)) return entry;
    const temp = `${dir}.${process.pid}.tmp`;
    await rm(temp, { recursive: true, force: true });
    await mkdir(temp, { recursive: true });
    try {
      // its postinstall only installs clients' dependencies in a source checkout: nothing to run here
      await execFileP('npm', ['install', '--prefix', temp, '--no-audit', '--no-fund', '--ignore-scripts', `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`],
        { maxBuffer: 16 * 1024 * 1024, timeout: 10 * 60_000 });
      await rename(temp, dir).catch(async (err) => {
        if (!(await exists(entry))) throw err; // another process finished first: use its copy
      });
      return entry;
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  })().catch((err) => { inspectorInstall = undefined; throw err; });
  return inspectorInstall;
}

export interface InspectorRun { code: number | null; stdout: string; stderr: string; json: any; ms: number }

/**
 * `inspector --cli <args>` with the project's node, HOME an empty temp dir (its catalog and
 * storage go there), no proxy variables; stdout parsed as JSON when it is JSON.
 */
export async function runInspector(args: string[], timeoutMs = 30_000): Promise<InspectorRun> {
  const entry = await installInspector();
  const home = await mkdtemp(join(tmpdir(), 'berth-test-inspector-'));
  const started = Date.now();
  try {
    const child = spawn(process.execPath, [entry, '--cli', ...args], {
      cwd: home, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => { stdout += d; });
    child.stderr!.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c))).finally(() => clearTimeout(timer));
    let json: any = undefined;
    try { json = JSON.parse(stdout); } catch { /* not JSON: the test says so with stdout */ }
    return { code, stdout, stderr, json, ms: Date.now() - started };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
