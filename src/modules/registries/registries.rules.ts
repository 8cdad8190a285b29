// Pure rules of container registries: the default URL of each kind, and the split of a config
// into its public part (stored as jsonb, returned) and its secret part (sealed, never returned).
import { SECRET_CONFIG_KEYS, type RegistryKind } from './registries.schemas.ts';

const DEFAULT_URLS: Partial<Record<RegistryKind, string>> = {
  DOCKER_HUB: 'https://docker.io',
  GITHUB_CR: 'https://ghcr.io',
  GITLAB_CR: 'https://registry.gitlab.com',
  PUBLIC_ECR: 'https://public.ecr.aws',
  DOCR: 'https://registry.digitalocean.com',
};

/** the URL a registry of this kind gets when none is sent; null when the kind has no fixed address */
export function defaultRegistryUrl(kind: RegistryKind, config: { region?: string | undefined }): string | null {
  if (kind === 'SCALEWAY_CR' && config.region) return `https://rg.${config.region}.scw.cloud`;
  return DEFAULT_URLS[kind] ?? null;
}

export function splitConfig(config: Record<string, unknown>): { publicPart: Record<string, unknown>; secretPart: Record<string, string> } {
  const publicPart: Record<string, unknown> = {};
  const secretPart: Record<string, string> = {};
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    if ((SECRET_CONFIG_KEYS as readonly string[]).includes(key)) secretPart[key] = String(value);
    else publicPart[key] = value;
  }
  return { publicPart, secretPart };
}
