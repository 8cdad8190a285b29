// Images for container services and jobs: the reference to pull (registry address + image name +
// tag), the Docker credentials of a berth container registry (by its kind), and the pull itself
// with progress condensed to one line per layer state. Pull and auth failures carry the daemon's
// own message as EngineFailure('deploy').
import type Docker from 'dockerode';
import { EngineFailure } from '../engine.ts';
import { daemonMessage, jsonLines, PullProgress } from './stream.ts';

export interface RegistryAuth { username: string; password: string; serveraddress: string }

const DOCKER_HUB_HOSTS = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com', 'hub.docker.com']);
const DOCKER_HUB_AUTH_ADDRESS = 'https://index.docker.io/v1/';

/** host[:port][/path] of a registry URL (scheme and trailing slashes dropped) */
function registryAddress(url: string | null): string | null {
  if (!url) return null;
  const address = url.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/+$/, '');
  return address || null;
}

/** whether the first path component of an image name is a registry host (docker's own rule) */
function namesRegistry(imageName: string): boolean {
  const slash = imageName.indexOf('/');
  if (slash < 0) return false;
  const first = imageName.slice(0, slash);
  return first.includes('.') || first.includes(':') || first === 'localhost';
}

/** the reference a container service pulls: `<registry address>/<image>:<tag>` (`@digest` for sha256 tags) */
export function imageReference(registryUrl: string | null, imageName: string, tag: string): string {
  const name = imageName.trim().replace(/^\/+/, '');
  const t = tag.trim() || 'latest';
  const suffix = /^sha256:[0-9a-f]{64}$/.test(t) ? `@${t}` : `:${t}`;
  const address = registryAddress(registryUrl);
  if (!address || namesRegistry(name) || DOCKER_HUB_HOSTS.has(address.split('/')[0]!)) return `${name}${suffix}`;
  if (name.startsWith(`${address}/`)) return `${name}${suffix}`;
  return `${address}/${name}${suffix}`;
}

function text(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v : null;
}

/** the registry host of a reference (docker.io when it names none) */
function refRegistry(ref: string): string {
  return namesRegistry(ref) ? ref.slice(0, ref.indexOf('/')) : 'docker.io';
}

/**
 * Docker credentials for pulling `ref` from a berth container registry, or null for an anonymous
 * pull. Username/password kinds map directly; DOCR uses its API token for both; SCALEWAY_CR logs
 * in as `nologin` with the secret key; GCP_ARTIFACT_REGISTRY as `_json_key` with the service
 * account JSON; AZURE_CR as the service principal (application id + client secret). ECR access
 * keys need AWS's token exchange, which this engine does not do: it throws EngineFailure('deploy').
 */
export function registryAuthFor(registry: { kind: string; url: string | null; credentials: Record<string, unknown> | null }, ref: string): RegistryAuth | null {
  const c = registry.credentials ?? {};
  const host = refRegistry(ref);
  const serveraddress = DOCKER_HUB_HOSTS.has(host) ? DOCKER_HUB_AUTH_ADDRESS : host;
  const pair = (username: string | null, password: string | null): RegistryAuth | null =>
    username && password ? { username, password, serveraddress } : null;
  const username = text(c.username);
  const password = text(c.password);
  switch (registry.kind) {
    case 'DOCR':
      return pair(username ?? password, password);
    case 'SCALEWAY_CR':
      return pair(username ?? (text(c.scaleway_secret_key) ? 'nologin' : null), password ?? text(c.scaleway_secret_key));
    case 'GCP_ARTIFACT_REGISTRY':
      return pair(username ?? (text(c.json_credentials) ? '_json_key' : null), password ?? text(c.json_credentials));
    case 'AZURE_CR':
      return pair(username ?? text(c.azure_application_id), password ?? text(c.azure_client_secret));
    case 'ECR': {
      const auth = pair(username, password);
      if (!auth && (text(c.access_key_id) || text(c.secret_access_key))) {
        throw new EngineFailure('deploy', 'ECR registries authenticate with AWS access keys through a token exchange the Docker engine does not perform; give the registry a username (AWS) and password (an ECR authorization token), or pull from another registry');
      }
      return auth;
    }
    default: // DOCKER_HUB, GENERIC_CR, GITHUB_CR, GITHUB_ENTERPRISE_CR, GITLAB_CR, PUBLIC_ECR
      return pair(username, password);
  }
}

/** splits `name[:tag]` / `name@digest` the way the Engine API's /images/create wants them */
function pullParams(ref: string): { fromImage: string; tag: string } {
  const at = ref.indexOf('@');
  if (at > 0) return { fromImage: ref.slice(0, at), tag: ref.slice(at + 1) };
  const colon = ref.lastIndexOf(':');
  if (colon > ref.lastIndexOf('/')) return { fromImage: ref.slice(0, colon), tag: ref.slice(colon + 1) };
  return { fromImage: ref, tag: 'latest' };
}

async function present(docker: Docker, ref: string): Promise<boolean> {
  try {
    await docker.getImage(ref).inspect();
    return true;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return false;
    throw new EngineFailure('deploy', daemonMessage(err));
  }
}

/**
 * Makes `ref` available to the daemon: with `pull: 'missing'` (the default) only when it is not
 * there yet, with 'always' every time (a moving tag). Progress lines reach `log` as they come.
 */
export async function ensureImage(docker: Docker, ref: string, auth: RegistryAuth | null,
  log: (line: string) => Promise<void>, signal: AbortSignal, opts?: { pull?: 'missing' | 'always' }): Promise<void> {
  signal.throwIfAborted();
  if ((opts?.pull ?? 'missing') === 'missing' && await present(docker, ref)) {
    await log(`Image ${ref} is present`);
    return;
  }
  await log(`Pulling ${ref}${auth ? ` as ${auth.username}` : ''}`);
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.createImage(auth ?? undefined as never, { ...pullParams(ref), abortSignal: signal } as never) as unknown as NodeJS.ReadableStream;
  } catch (err) {
    signal.throwIfAborted();
    throw new EngineFailure('deploy', daemonMessage(err));
  }
  const progress = new PullProgress();
  let failure: string | null = null;
  try {
    for await (const msg of jsonLines(stream, signal)) {
      if (msg.error || msg.errorDetail) {
        failure = String(msg.errorDetail?.message ?? msg.error).trim();
        break;
      }
      const line = progress.line(msg);
      if (line) await log(line);
    }
  } catch (err) {
    signal.throwIfAborted();
    throw new EngineFailure('deploy', daemonMessage(err));
  } finally {
    (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
  }
  signal.throwIfAborted();
  if (failure) {
    await log(failure);
    throw new EngineFailure('deploy', failure);
  }
  if (!(await present(docker, ref))) throw new EngineFailure('deploy', `the pull of ${ref} ended without the image`);
}
