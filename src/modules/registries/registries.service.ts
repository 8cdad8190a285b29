// Container registries of an organization: where containers and jobs pull images from. ADMIN
// manages, VIEWER reads. Credentials are sealed at rest (config_sealed) and never returned; an
// edit merges the config members sent into the stored ones. `getRegistryRef` is how service
// modules resolve a `registry_id` into the {id, name, url, kind} their responses show.
import type { Db, Queryable } from '../../db/db.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import * as repo from './registries.repo.ts';
import { defaultRegistryUrl, splitConfig } from './registries.rules.ts';
import type { ContainerRegistry, ContainerRegistryRequest, RegistryKind, RegistryRef } from './registries.schemas.ts';

export interface RegistriesService {
  list(p: Principal, organizationId: string, req: PageRequest): Promise<{ results: ContainerRegistry[]; pagination: PageInfo }>;
  create(p: Principal, organizationId: string, body: ContainerRegistryRequest): Promise<ContainerRegistry>;
  get(p: Principal, organizationId: string, registryId: string): Promise<ContainerRegistry>;
  update(p: Principal, organizationId: string, registryId: string, body: ContainerRegistryRequest): Promise<ContainerRegistry>;
  remove(p: Principal, organizationId: string, registryId: string): Promise<void>;
  /** {id, name, url, kind} of a registry of this organization, or null (no authorization: callers have done it) */
  getRegistryRef(organizationId: string, registryId: string, db?: Queryable): Promise<RegistryRef | null>;
  /** the decrypted credentials of a registry (for the engine pulling images); null when none */
  credentials(organizationId: string, registryId: string): Promise<Record<string, string> | null>;
}

export function createRegistriesService(deps: { db: Db; organizations: OrganizationsService; sealer: Sealer }): RegistriesService {
  const { db, organizations, sealer } = deps;

  function toResponse(r: repo.RegistryRecord): ContainerRegistry {
    const { publicPart } = splitConfig(r.config);
    return {
      id: r.id, created_at: r.createdAt, updated_at: r.updatedAt, organization: { id: r.organizationId }, name: r.name,
      kind: r.kind, url: r.url, description: r.description, config: publicPart, has_credential: r.configSealed !== null,
    };
  }

  function resolveUrl(kind: RegistryKind, url: string | undefined, config: Record<string, unknown>): string {
    if (url) return url;
    const fallback = defaultRegistryUrl(kind, { region: typeof config.region === 'string' ? config.region : undefined });
    if (!fallback) throw badRequest(`url is required for a registry of kind ${kind}`);
    return fallback;
  }

  function sealSecrets(secretPart: Record<string, string>): string | null {
    return Object.keys(secretPart).length === 0 ? null : sealer.seal(JSON.stringify(secretPart));
  }

  function openSecrets(sealed: string | null): Record<string, string> {
    return sealed ? JSON.parse(sealer.open(sealed)) as Record<string, string> : {};
  }

  async function load(organizationId: string, registryId: string): Promise<repo.RegistryRecord> {
    const r = await repo.findRegistry(db, organizationId, registryId);
    if (!r) throw notFound('Container registry');
    return r;
  }

  return {
    async list(p, organizationId, req) {
      await organizations.authorize(p, organizationId, 'read');
      const { items, total } = await repo.listRegistries(db, organizationId, req.limit, req.offset, req.name ?? null);
      return page(req, items.map(toResponse), total);
    },
    async create(p, organizationId, body) {
      await organizations.authorize(p, organizationId, 'manage');
      const { publicPart, secretPart } = splitConfig(body.config ?? {});
      const created = await repo.insertRegistry(db, organizationId, {
        name: body.name, kind: body.kind, url: resolveUrl(body.kind, body.url, publicPart), description: body.description ?? '',
        config: publicPart, configSealed: sealSecrets(secretPart),
      });
      return toResponse(created);
    },
    async get(p, organizationId, registryId) {
      await organizations.authorize(p, organizationId, 'read');
      return toResponse(await load(organizationId, registryId));
    },
    async update(p, organizationId, registryId, body) {
      await organizations.authorize(p, organizationId, 'manage');
      const current = await load(organizationId, registryId);
      const sent = splitConfig(body.config ?? {});
      const config = { ...current.config, ...sent.publicPart };
      const secrets = { ...openSecrets(current.configSealed), ...sent.secretPart };
      // a kind change without a url takes the new kind's default address
      const url = body.url ?? (body.kind !== current.kind ? undefined : current.url);
      const updated = await repo.updateRegistry(db, organizationId, registryId, {
        name: body.name, kind: body.kind, url: resolveUrl(body.kind, url, config),
        description: body.description === undefined ? current.description : (body.description ?? ''),
        config, configSealed: sealSecrets(secrets),
      });
      if (!updated) throw notFound('Container registry');
      return toResponse(updated);
    },
    async remove(p, organizationId, registryId) {
      await organizations.authorize(p, organizationId, 'manage');
      await load(organizationId, registryId);
      const used = await repo.countServicesUsingRegistry(db, organizationId, registryId);
      if (used > 0) throw conflict(`The container registry is used by ${used} service(s); change their image source first`);
      if (!(await repo.deleteRegistry(db, organizationId, registryId))) throw notFound('Container registry');
    },
    getRegistryRef(organizationId, registryId, q) {
      return repo.findRegistryRef(q ?? db, organizationId, registryId);
    },
    async credentials(organizationId, registryId) {
      return registryCredentials(db, sealer, organizationId, registryId);
    },
  };
}

/** a registry's decrypted credentials, read with the caller's handle (works inside a transaction); null when none */
export async function registryCredentials(db: Queryable, sealer: Sealer, organizationId: string, registryId: string): Promise<Record<string, string> | null> {
  const r = await repo.findRegistry(db, organizationId, registryId);
  return r ? openConfig(r, sealer) : null;
}

/** the secret part of a registry's configuration, opened; null when it has none */
function openConfig(r: repo.RegistryRecord, sealer: Sealer): Record<string, string> | null {
  return r.configSealed ? JSON.parse(sealer.open(r.configSealed)) as Record<string, string> : null;
}

/** host[:port] of a registry URL or of an image-reference prefix (`host[:port][/path]`, no scheme) */
function registryAddress(value: string): string | null {
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`).host.toLowerCase() || null;
  } catch {
    return null;
  }
}

/**
 * The organization's container registry at `address` (SWARM_REGISTRY: host[:port][/path]), with
 * its credentials opened: berth pushes built images there with them and Swarm's nodes pull with
 * them. Null when the organization has no registry at that address (the registry takes anonymous
 * pushes then).
 */
export async function registryAt(db: Queryable, sealer: Sealer, organizationId: string, address: string): Promise<{ kind: string; url: string; credentials: Record<string, string> | null } | null> {
  const wanted = registryAddress(address);
  const { items } = await repo.listRegistries(db, organizationId, null, 0);
  const found = items.find((r) => wanted !== null && registryAddress(r.url) === wanted);
  if (!found) return null;
  return { kind: found.kind, url: found.url, credentials: openConfig(found, sealer) };
}
