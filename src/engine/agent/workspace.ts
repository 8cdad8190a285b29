// What a run container finds before it starts: /berth (the prompt, the MCP configuration, the
// context file) and /workspace (each project repository cloned at its branch, on the host, with
// the engine's git code: its token through git's environment, never argv or a log line). All of it
// packed as one tar owned by the agent user and copied into the created container.
import type Docker from 'dockerode';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tarFs from 'tar-fs';
import { EngineFailure } from '../engine.ts';
import { cloneRepository } from '../docker/source.ts';
import { redactUrls } from '../../lib/net.ts';
import type { AgentRunSpec } from './spec.ts';

const AGENT_UID = 1000;

export interface WorkspaceFiles { prompt: string; mcpConfig: string | null; context: string }

/** a folder name for a repository under /workspace: its last path segment, made unique */
export function repositoryDirs(urls: readonly string[]): string[] {
  const used = new Set<string>();
  return urls.map((url) => {
    const raw = (url.replace(/[#?].*$/, '').replace(/\/+$/, '').split(/[/:]/).pop() ?? 'repo').replace(/\.git$/, '').replace(/[^A-Za-z0-9._-]/g, '-') || 'repo';
    // never a hidden folder, nor `.` or `..`
    const base = raw.startsWith('.') ? `repo${raw}` : raw;
    let name = base;
    for (let i = 2; used.has(name); i++) name = `${base}-${i}`;
    used.add(name);
    return name;
  });
}

/**
 * Clones the repositories and copies everything into the container (created, not started).
 * Clone failures throw EngineFailure with git's words.
 */
export async function prepareWorkspace(docker: Docker, containerId: string, spec: AgentRunSpec, files: WorkspaceFiles,
  opts: { allowLocalGit: boolean }, log: (line: string) => Promise<void>, signal: AbortSignal): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'berth-agent-workspace-'));
  try {
    await mkdir(join(root, 'berth'), { mode: 0o755 });
    await mkdir(join(root, 'workspace'), { mode: 0o755 });
    await writeFile(join(root, 'berth', 'prompt.md'), files.prompt);
    await writeFile(join(root, 'berth', 'context.json'), files.context);
    if (files.mcpConfig) await writeFile(join(root, 'berth', 'mcp.json'), files.mcpConfig);
    for (const repo of spec.repositories) {
      await log(`Cloning ${redactUrls(repo.url)} (branch ${repo.branch}${repo.commit ? ` at ${repo.commit.slice(0, 12)}` : ''}) into /workspace/${repo.dir}`);
      const work = join(root, 'clones', repo.dir);
      await mkdir(work, { recursive: true });
      const cloned = await cloneRepository({ url: repo.url, branch: repo.branch, commit: repo.commit ?? null, rootPath: null, token: repo.token, username: repo.username ?? null },
        { allowLocal: opts.allowLocalGit, workDir: work }, log, signal).catch((err: unknown) => {
        if (err instanceof EngineFailure) throw new EngineFailure('deploy', `Repository ${redactUrls(repo.url)}: ${err.message}`);
        throw err;
      });
      // the clone keeps no credential: the origin is the URL as configured (a token is never in it)
      await rename(cloned.dir, join(root, 'workspace', repo.dir));
    }
    await rm(join(root, 'clones'), { recursive: true, force: true });
    const pack = tarFs.pack(root, {
      entries: ['berth', 'workspace'],
      map: (header) => ({ ...header, uid: AGENT_UID, gid: AGENT_UID }),
    });
    await docker.getContainer(containerId).putArchive(pack, { path: '/' });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
