// Small facts about the host's processes and ports, shared by the DATA_DIR lock, the embedded
// PostgreSQL server, the Docker engine, the bench and the tests.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** a process with this pid exists (EPERM: it does, owned by another user) */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** alive and not a zombie (an exited process its parent has not reaped yet serves nothing); where
 * /proc cannot be read, alive is taken as running */
export function processRunning(pid: number): boolean {
  if (!processAlive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** a free TCP port on loopback (whoever binds it next may race another; callers retry or accept that) */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
