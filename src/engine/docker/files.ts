// File variables (a variable with a mount_path) become files in the container before it starts:
// written to a private temporary directory (0600, removed right after), packed as a tar and
// copied into the created container through the Engine API.
import type Docker from 'dockerode';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import tarFs from 'tar-fs';

export async function copyFiles(docker: Docker, containerId: string, files: ReadonlyArray<{ path: string; content: string }>): Promise<void> {
  if (files.length === 0) return;
  const dir = await mkdtemp(join(tmpdir(), 'berth-files-'));
  try {
    for (const f of files) {
      const relative = normalize(f.path).replace(/^\/+/, '');
      if (relative === '' || relative.startsWith('..')) continue;
      await mkdir(dirname(join(dir, relative)), { recursive: true, mode: 0o700 });
      await writeFile(join(dir, relative), f.content, { mode: 0o600 });
    }
    // readable by the container's user whoever it is (the image decides), like a Kubernetes secret volume
    const pack = tarFs.pack(dir, { map: (header) => ({ ...header, mode: header.type === 'directory' ? 0o755 : 0o444, uid: 0, gid: 0 }) });
    await docker.getContainer(containerId).putArchive(pack, { path: '/' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
