// Test factories for the hierarchy: rows inserted directly so a module's tests can stand on a
// cluster, project, environment or service without depending on other modules' routes.
import { randomUUID } from 'node:crypto';
import { slugify } from '../../src/lib/text.ts';
import type { SeededOrganization, TestApp } from './harness.ts';

export interface SeededEnvironment {
  organizationId: string;
  clusterId: string;
  projectId: string;
  id: string;
  name: string;
}

export async function seedCluster(t: TestApp, orgId: string, capacity: { cpu?: number; memory?: number; gpu?: number } = {}): Promise<string> {
  const rows = await t.ctx.db.query<{ id: string }>(
    `insert into clusters (organization_id, name, cpu, memory, gpu) values ($1, $2, $3, $4, $5) returning id`,
    [orgId, `cluster-${randomUUID().slice(0, 8)}`, capacity.cpu ?? 4000, capacity.memory ?? 8192, capacity.gpu ?? 0]);
  return rows[0]!.id;
}

export async function seedEnvironment(t: TestApp, org: SeededOrganization, options: {
  clusterId?: string; mode?: string; autoPreview?: boolean; capacity?: { cpu?: number; memory?: number; gpu?: number };
} = {}): Promise<SeededEnvironment> {
  const clusterId = options.clusterId ?? await seedCluster(t, org.id, options.capacity);
  const project = await t.ctx.db.query<{ id: string }>(
    `insert into projects (organization_id, name) values ($1, $2) returning id`, [org.id, `project-${randomUUID().slice(0, 8)}`]);
  const name = `env-${randomUUID().slice(0, 8)}`;
  const env = await t.ctx.db.query<{ id: string }>(
    `insert into environments (organization_id, project_id, cluster_id, name, mode, auto_preview) values ($1, $2, $3, $4, $5, $6) returning id`,
    [org.id, project[0]!.id, clusterId, name, options.mode ?? 'DEVELOPMENT', options.autoPreview ?? false]);
  return { organizationId: org.id, clusterId, projectId: project[0]!.id, id: env[0]!.id, name };
}

/** a service row of any type with the given spec (for modules that act on services generically) */
export async function seedService(t: TestApp, env: SeededEnvironment, type: string, spec: Record<string, unknown> = {}, name = `svc-${randomUUID().slice(0, 8)}`): Promise<string> {
  const rows = await t.ctx.db.query<{ id: string }>(
    `insert into services (organization_id, project_id, environment_id, type, name, slug, spec)
     values ($1, $2, $3, $4, $5, $6, $7::jsonb) returning id`,
    [env.organizationId, env.projectId, env.id, type, name, slugify(name), JSON.stringify(spec)]);
  return rows[0]!.id;
}
