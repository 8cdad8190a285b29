// Debian roots for test images, without any image registry: the host's Debian mirror (read from
// apt's sources), a bookworm minbase root made by debootstrap with the packages asked for and kept
// as a tarball under the test cache (/var/cache/berth-test, BERTH_TEST_CACHE_DIR overrides) so later
// runs take seconds, and `docker import` of such a tarball. Callers in one process asking for the
// same package set share one debootstrap; processes racing each other each write their own temp
// file and rename it into place.
import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { access, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { jsonLines } from '../../src/engine/docker/stream.ts';

const run = promisify(execFile);

/** where test fixtures keep what is slow to make (root tarballs, npm installs) */
export const TEST_CACHE_DIR = process.env.BERTH_TEST_CACHE_DIR ?? '/var/cache/berth-test';

export async function exists(path: string): Promise<boolean> {
  return access(path).then(() => true, () => false);
}

export async function hasImage(docker: Docker, ref: string): Promise<boolean> {
  return docker.getImage(ref).inspect().then(() => true, () => false);
}

/** the Debian mirror the host's apt uses (deb.debian.org when none is found) */
async function debianMirror(): Promise<string> {
  const files = ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list'];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => '');
    const m = /^URIs:\s*(\S+\/debian)\s*$/m.exec(text) ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\s+bookworm\b/m.exec(text);
    if (m) return m[1]!;
  }
  return 'http://deb.debian.org/debian';
}

const tarballs = new Map<string, Promise<string>>();

/**
 * A cached tarball of a bookworm minbase root holding `packages` (made once, one to a few minutes).
 * Concurrent callers for the same package set share one promise; a failure is not remembered.
 */
export function rootTarball(packages: string[]): Promise<string> {
  const key = packages.join(',');
  let pending = tarballs.get(key);
  if (!pending) {
    pending = makeRootTarball(packages);
    tarballs.set(key, pending);
    pending.catch(() => tarballs.delete(key));
  }
  return pending;
}

async function makeRootTarball(packages: string[]): Promise<string> {
  await mkdir(TEST_CACHE_DIR, { recursive: true });
  const tarball = join(TEST_CACHE_DIR, `debian-bookworm-${packages.join('-')}.tar`);
  if (await exists(tarball)) return tarball;
  const work = await mkdtemp(join(tmpdir(), 'berth-test-debootstrap-'));
  const root = join(work, 'root');
  const temp = `${tarball}.${process.pid}.tmp`;
  try {
    await run('debootstrap', ['--variant=minbase', `--include=${packages.join(',')}`, 'bookworm', root, await debianMirror()],
      { maxBuffer: 64 * 1024 * 1024, timeout: 15 * 60_000 });
    await rm(join(root, 'var/cache/apt/archives'), { recursive: true, force: true });
    await rm(join(root, 'var/lib/apt/lists'), { recursive: true, force: true });
    await run('tar', ['-C', root, '--numeric-owner', '-cf', temp, '.'], { maxBuffer: 64 * 1024 * 1024 });
    await rename(temp, tarball);
    return tarball;
  } finally {
    await rm(work, { recursive: true, force: true });
    await rm(temp, { force: true });
  }
}

/** `docker import` of a root tarball as `ref` (repo:tag); `changes`: Dockerfile instructions applied at import (`docker import --change`), e.g. CMD */
export async function importRoot(docker: Docker, tarball: string, ref: string, changes: string[] = []): Promise<void> {
  const [repo, tag] = ref.split(':') as [string, string];
  const stream = await docker.importImage(createReadStream(tarball) as never, { repo, tag, ...(changes.length ? { changes } : {}) }) as unknown as NodeJS.ReadableStream;
  for await (const msg of jsonLines(stream, AbortSignal.timeout(600_000))) {
    if (msg.error || msg.errorDetail) throw new Error(`docker import of ${tarball} failed: ${msg.errorDetail?.message ?? msg.error}`);
  }
}
