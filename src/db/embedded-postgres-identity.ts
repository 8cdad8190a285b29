// Which identity the embedded PostgreSQL runs as. PostgreSQL refuses to run as root, and CI and
// many containers run berth as root, so as root (and only then) the server runs:
//   - as the owner of its data directory when that is not root (an existing one keeps its owner;
//     a new one takes DATA_DIR's owner when not root, e.g. `sudo berth` in a user's directory);
//   - else, for a new data directory, as `nobody` when nobody can reach the binaries and DATA_DIR
//     (the data directory is then chowned to nobody);
//   - else in a user namespace (`unshare --user`) where berth's root is seen as uid 65534: the
//     server then reaches what root reaches (a DATA_DIR under /root, mode 0700) and its files
//     stay owned by root on disk. Used for existing root-owned data directories too.
// No system account is ever created. Decision 0703.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { EmbeddedDatabaseError } from './embedded-kind.ts';

export interface ServerIdentity {
  /** uid/gid for spawn() (empty: berth's own) */
  spawn: { uid?: number; gid?: number };
  /** a command the server's processes are started through (the user namespace), or none */
  prefix: string[];
  /** the data directory must be chowned to this before initdb */
  chown?: { uid: number; gid: number };
  describe: string;
}

const USERNS = ['unshare', '--user', '--map-user=65534', '--map-group=65534', '--'];

function nobody(): { uid: number; gid: number } {
  try {
    const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('nobody:'));
    if (line) {
      const [, , uid, gid] = line.split(':');
      return { uid: Number(uid), gid: Number(gid) };
    }
  } catch { /* no passwd file */ }
  return { uid: 65534, gid: 65534 };
}

/** runs a command; true when it exits 0 */
function succeeds(file: string, args: string[], ids: { uid?: number; gid?: number } = {}, cwd = '/'): Promise<boolean> {
  return new Promise((res) => {
    const child = spawn(file, args, { cwd, stdio: 'ignore', ...ids });
    child.on('error', () => res(false));
    child.on('exit', (code) => res(code === 0));
  });
}

export async function serverIdentity(dataDir: string, pgdata: string, postgresBinary: string): Promise<ServerIdentity> {
  if (process.getuid?.() !== 0) return { spawn: {}, prefix: [], describe: 'berth\'s own user' };
  const existing = existsSync(pgdata) ? statSync(pgdata) : undefined;
  const owner = existing ?? statSync(dataDir);
  if (owner.uid !== 0) {
    const ids = { uid: owner.uid, gid: owner.gid };
    return { spawn: ids, prefix: [], chown: existing ? undefined : ids, describe: `uid ${owner.uid} (owner of ${existing ? pgdata : dataDir})` };
  }
  if (!existing) {
    const ids = nobody();
    const reachable = await succeeds('/bin/sh', ['-c', 'test -x "$1" && test -x "$2"', 'check', postgresBinary, dataDir], ids);
    if (reachable) return { spawn: ids, prefix: [], chown: ids, describe: `nobody (uid ${ids.uid})` };
  }
  if (await succeeds(USERNS[0], [...USERNS.slice(1), '/bin/true'])) {
    return { spawn: {}, prefix: USERNS, describe: 'root seen as uid 65534 in a user namespace' };
  }
  throw new EmbeddedDatabaseError(`berth runs as root, and PostgreSQL refuses to: the embedded server would run as nobody, which cannot reach ${postgresBinary} or ${dataDir}, `
    + 'and user namespaces (unshare --user) are not available here. Run berth as a normal user, make every directory on both paths searchable (chmod o+x), '
    + 'or use EMBEDDED_DATABASE=pglite');
}
