// Real berth processes for scale-out and fault tests: spawn `berth serve --role …` on a port,
// wait until ready, kill (gracefully or with SIGKILL), collect stderr for diagnostics.
import { SERVER_NODE_FLAGS } from '../../src/cli/server-flags.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { eventually } from './harness.ts';
import { freeLoopbackPort as freePort } from '../../src/lib/processes.ts';

const root = new URL('../..', import.meta.url).pathname;

export interface BerthProcess {
  role: string;
  port: number;
  url: string;
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export { freePort };

/** `as`: the uid/gid to run berth as (a test running as root tries a normal user) */
export async function startBerth(role: 'all' | 'api' | 'worker', env: Record<string, string>, as?: { uid: number; gid: number }): Promise<BerthProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, join(root, 'bin/berth.mjs'), 'serve', '--role', role], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '0', ENGINE: 'simulated', ...env },
    stdio: ['ignore', 'pipe', 'pipe'], ...as,
  });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  if (role !== 'worker') {
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`berth ${role} exited: ${out}`);
      return (await fetch(`${url}/readyz`).catch(() => null))?.status === 200;
    }, 60_000, 200);
  } else {
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`berth worker exited: ${out}`);
      return out.includes('berth started');
    }, 60_000, 200);
  }
  return {
    role, port, url, child,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
