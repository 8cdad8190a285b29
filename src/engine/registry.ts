// Images a service runs from a registry: the reference to pull (registry address + image name +
// tag) and the Docker credentials of a berth container registry (by its kind). Pure: the
// deployments module resolves them into the runtime plan (plan.ts); the drivers pull with them.
import { EngineFailure } from './engine.ts';
import type { RegistryAuth } from './plan.ts';

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
