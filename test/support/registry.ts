// An authenticated image registry for engine tests: Debian's docker-registry (distribution 2.x)
// on 127.0.0.1:<free port> with htpasswd (bcrypt) auth and storage in a temp dir. dockerd treats
// registries on 127.0.0.0/8 as plain-HTTP, so the daemon pulls from it without TLS.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { jsonLines } from '../../src/engine/docker/stream.ts';
import { freePort } from './processes.ts';

const run = promisify(execFile);

export interface TestRegistry {
  /** host:port, what image references start with */
  address: string;
  username: string;
  password: string;
  /** tags `localRef` as `<address>/<name>:<tag>`, pushes it with the credentials, returns that reference */
  push(localRef: string, name: string, tag: string): Promise<string>;
  close(): Promise<void>;
}

/** `host`: where it listens (default loopback; a Swarm's nodes reach the test host's leg of their network) */
export async function startTestRegistry(docker: Docker, options: { host?: string; port?: number } = {}): Promise<TestRegistry> {
  const dir = await mkdtemp(join(tmpdir(), 'berth-test-registry-'));
  const username = 'berth';
  const password = randomBytes(12).toString('hex');
  await run('htpasswd', ['-B', '-b', '-c', join(dir, 'htpasswd'), username, password]);
  const port = options.port ?? await freePort();
  const address = `${options.host ?? '127.0.0.1'}:${port}`;
  await writeFile(join(dir, 'config.yml'), [
    'version: 0.1',
    'log:',
    '  level: warn',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${join(dir, 'data')}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: ${address}`,
    `  secret: ${randomBytes(16).toString('hex')}`,
    'auth:', '  htpasswd:', '    realm: berth-test', `    path: ${join(dir, 'htpasswd')}`,
    '',
  ].join('\n'));
  const child = spawn('/usr/bin/docker-registry', ['serve', join(dir, 'config.yml')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr += d; });
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited: ${stderr}`);
    const status = await fetch(`http://${address}/v2/`).then((r) => r.status, () => 0);
    if (status === 401) break;
    if (Date.now() > deadline) throw new Error(`docker-registry did not answer on ${address}: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  const tagged: string[] = [];
  return {
    address, username, password,
    async push(localRef, name, tag) {
      const repo = `${address}/${name}`;
      await docker.getImage(localRef).tag({ repo, tag });
      tagged.push(`${repo}:${tag}`);
      const stream = await docker.getImage(repo).push({ tag, authconfig: { username, password, serveraddress: address } } as never) as unknown as NodeJS.ReadableStream;
      for await (const msg of jsonLines(stream, AbortSignal.timeout(120_000))) {
        if (msg.error || msg.errorDetail) throw new Error(`push of ${repo}:${tag} failed: ${msg.errorDetail?.message ?? msg.error}`);
      }
      return `${repo}:${tag}`;
    },
    async close() {
      for (const ref of tagged) await docker.getImage(ref).remove({ noprune: true }).catch(() => {});
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
