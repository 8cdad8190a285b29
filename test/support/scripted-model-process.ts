// The scripted Anthropic endpoint (scripted-model/server.mjs) as a process of the test host,
// listening on every address at a free port: for runs that reach the test host by an address
// (a Swarm node in its namespace reaches the host's leg of the cluster network), where the
// container fixture of agent-fixtures.ts is unreachable from the test process.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { scriptedModelClient, type ScriptedModel } from './agent-fixtures.ts';
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
  return scriptedModelClient(`http://${address}:${port}`, `http://127.0.0.1:${port}`, async () => {
    if (child.exitCode !== null) return;
    child.kill();
    await once(child, 'exit');
  });
}
