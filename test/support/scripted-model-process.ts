// The scripted Anthropic endpoint (scripted-model/server.mjs) as a process of the test host,
// listening on every address at a free port: for runs that reach the test host by an address
// (a Swarm node in its namespace reaches the host's leg of the cluster network), where the
// container fixture of agent-fixtures.ts is unreachable from the test process.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { RecordedRequest, ScriptedModel, Step } from './agent-fixtures.ts';
import { freePort } from './processes.ts';

const SERVER = new URL('./scripted-model/server.mjs', import.meta.url).pathname;

export async function startScriptedModelProcess(address: string): Promise<ScriptedModel> {
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  let said = '';
  child.stdout!.on('data', (d: Buffer) => { said += d.toString('utf8'); });
  const deadline = Date.now() + 10_000;
  while (!/listening/.test(said)) {
    if (child.exitCode !== null || Date.now() > deadline) { child.kill(); throw new Error(`the scripted model did not start: ${said}`); }
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = `http://${address}:${port}`;
  const local = `http://127.0.0.1:${port}`;
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${local}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  const setScripts = async (scripts: Record<string, Step[]>) => {
    await call('/__scripts', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(scripts) });
  };
  return {
    baseUrlInNetwork: url,
    hostUrl: local,
    setScripts,
    requests: async () => (await call('/__requests')).json() as Promise<RecordedRequest[]>,
    reset: async () => { await call('/__requests', { method: 'DELETE' }); await setScripts({}); },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill();
      await once(child, 'exit');
    },
  };
}
