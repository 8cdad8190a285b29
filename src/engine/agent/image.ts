// The image an agent run starts from: AGENT_BASE_IMAGE (any Debian- or Ubuntu-based image; pulled
// when the daemon lacks it) plus the harness (Claude Code's native binary, pinned by berth's own
// package.json), node (stdio MCP servers are mostly npm packages), git, ca-certificates and
// tinyproxy (the egress proxy runs from the same image); then the workflow's docker_fragment on
// top. Each image is tagged by a hash of what it is made of, so a second run builds nothing.
import type Docker from 'dockerode';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { copyFile, link, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EngineFailure } from '../engine.ts';
import { buildImage } from '../docker/build.ts';
import { ensureImage } from '../docker/images.ts';
import { MANAGED_LABEL } from '../docker/naming.ts';

const require = createRequire(import.meta.url);
export const AGENT_USER = 'agent';
const AGENT_HOME = '/home/agent';
const IMAGE_FORMAT = '1';

export interface HarnessFiles { claude: string; node: string; version: string }

/** the pinned harness and node binaries for this host's architecture (glibc builds) */
function harnessFiles(): HarnessFiles {
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  const pkg = require.resolve(`@anthropic-ai/claude-code-linux-${arch}/package.json`);
  const version = (JSON.parse(readFileSync(require.resolve('@anthropic-ai/claude-code/package.json'), 'utf8')) as { version: string }).version;
  let node = process.execPath;
  try {
    node = join(dirname(require.resolve('node/package.json')), 'bin', 'node');
  } catch { /* the running node */ }
  return { claude: join(dirname(pkg), 'claude'), node, version };
}

/** the harness layer's Dockerfile: what the base lacks is installed with apt, the binaries copied in */
function harnessDockerfile(baseImage: string): string {
  return [
    `FROM ${baseImage}`,
    'USER root',
    'RUN set -e; need=""; command -v git >/dev/null 2>&1 || need="$need git"; [ -s /etc/ssl/certs/ca-certificates.crt ] || need="$need ca-certificates"; '
      + 'command -v tinyproxy >/dev/null 2>&1 || need="$need tinyproxy"; '
      + 'if [ -n "$need" ]; then apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $need && rm -rf /var/lib/apt/lists/*; fi',
    'COPY claude node /usr/local/bin/',
    `RUN (id -u ${AGENT_USER} >/dev/null 2>&1 || useradd --create-home --non-unique --uid 1000 --shell /bin/sh ${AGENT_USER}) && mkdir -p /workspace /berth && chown ${AGENT_USER} /workspace /berth`,
    `ENV HOME=${AGENT_HOME} DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`,
    'WORKDIR /workspace',
    '',
  ].join('\n');
}

const hash = (...parts: string[]) => createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 16);

async function imageId(docker: Docker, ref: string): Promise<string | null> {
  return docker.getImage(ref).inspect().then((i) => i.Id, () => null);
}

async function linkOrCopy(from: string, to: string): Promise<void> {
  await link(from, to).catch(() => copyFile(from, to));
}

export interface AgentImageRequest { baseImage: string; dockerFragment: string }

/**
 * The image a run uses, built when missing. Builder output goes to `log`; a fragment that does not
 * build throws EngineFailure('build') with the builder's words.
 */
export async function ensureAgentImage(docker: Docker, req: AgentImageRequest, log: (line: string) => Promise<void>, signal: AbortSignal,
  files: HarnessFiles = harnessFiles()): Promise<string> {
  await ensureImage(docker, req.baseImage, null, log, signal);
  const baseId = (await imageId(docker, req.baseImage)) ?? req.baseImage;
  const dockerfile = harnessDockerfile(req.baseImage);
  const harnessTag = `berth-agent-harness:${hash(IMAGE_FORMAT, baseId, files.version, process.version, dockerfile)}`;
  const labels = { [MANAGED_LABEL]: 'true', 'berth.role': 'agent-image' };
  if (!(await imageId(docker, harnessTag))) {
    await log(`Building the agent image: ${req.baseImage} + Claude Code ${files.version} + node ${process.version}`);
    const dir = await mkdtemp(join(tmpdir(), 'berth-agent-image-'));
    try {
      await linkOrCopy(files.claude, join(dir, 'claude'));
      await linkOrCopy(files.node, join(dir, 'node'));
      await writeFile(join(dir, 'Dockerfile'), dockerfile);
      await buildImage(docker, { contextDir: dir, dockerfilePath: null, tag: harnessTag, buildArgs: {}, labels }, log, signal);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const fragment = req.dockerFragment.trim();
  if (!fragment) return harnessTag;
  const runTag = `berth-agent:${hash(IMAGE_FORMAT, harnessTag, fragment)}`;
  if (await imageId(docker, runTag)) return runTag;
  await log('Building the workflow\'s docker_fragment');
  const dir = await mkdtemp(join(tmpdir(), 'berth-agent-fragment-'));
  try {
    await writeFile(join(dir, 'Dockerfile'), `FROM ${harnessTag}\nUSER root\n${fragment}\n`);
    await buildImage(docker, { contextDir: dir, dockerfilePath: null, tag: runTag, buildArgs: {}, labels }, log, signal);
  } catch (err) {
    if (err instanceof EngineFailure) throw new EngineFailure('build', `The docker_fragment did not build: ${err.message}`);
    throw err;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return runTag;
}
