// Infrastructure as code (issue 41, decision 0745): apply a berth.yaml to an organization (its
// project found or made by name) or to a project, as a plan (`dry_run`) or for real, in one
// transaction through the owning modules' services; export an environment or a project as the
// file. Authorization: reading (plan of an existing project, export) needs read; applying needs
// write on the project (manage to create a project or environment, which those services check);
// the services called check the rest as they do for the REST routes.
import type { Db, Queryable } from '../../db/db.ts';
import { conflict, invalid } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import type { Project } from '../projects/projects.schemas.ts';
import type { ScopeService } from '../scope/scope.service.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { execute, recordOwnership, resolve } from './apply.ts';
import { resolveDatabaseRefs } from './database-refs.ts';
import { documentToYaml, parseManifest } from './document.ts';
import type { ApplyRequest, ApplyResult, ManifestProblem } from './manifest.schemas.ts';
import { plan, summarize } from './manifests.rules.ts';
import * as repo from './manifests.repo.ts';
import { ALL, LABEL_OF, TYPE_OF, readState, stateToDocument, type ManifestServices } from './state.ts';

export interface ManifestsService {
  /** the project the document names, in this organization (made when missing) */
  applyToOrganization(p: Principal, organizationId: string, body: ApplyRequest, dryRun: boolean): Promise<ApplyResult>;
  applyToProject(p: Principal, projectId: string, body: ApplyRequest, dryRun: boolean): Promise<ApplyResult>;
  exportEnvironment(p: Principal, environmentId: string): Promise<string>;
  exportProject(p: Principal, projectId: string): Promise<string>;
}

export interface ManifestsDeps {
  db: Db;
  /** opens databases' master credentials (variables `from_database`) */
  sealer: Sealer;
  organizations: Pick<OrganizationsService, 'authorize'>;
  scope: Pick<ScopeService, 'environment'>;
  /** the services, unbound (exports) */
  services: ManifestServices;
  /** runs fn in one transaction with every service bound to it (the composition root builds them) */
  transactional<T>(fn: (tx: Queryable, s: ManifestServices) => Promise<T>): Promise<T>;
}

export function createManifestsService(deps: ManifestsDeps): ManifestsService {
  const { services } = deps;
  /** variables and secrets of the project set from a database's credentials (export writes the reference) */
  const references = async (projectId: string) => new Map([...await repo.ownersInProject(deps.db, projectId)]
    .filter(([, row]) => row.reference !== null).map(([id, row]) => [id, row.reference!]));

  async function run(p: Principal, target: { organizationId: string; projectId: string | null }, body: ApplyRequest, dryRun: boolean): Promise<ApplyResult> {
    const file = body.file ?? 'berth.yaml';
    const parsed = parseManifest(body.document, file);
    if (!parsed.ok) throw invalid(parsed.problems);
    const { doc, locate } = parsed;
    const orgId = target.organizationId;
    return deps.transactional(async (tx, s) => {
      let project: Project | null;
      if (target.projectId) project = await s.projects.get(p, target.projectId);
      else {
        project = (await s.projects.list(p, orgId, { ...ALL, name: doc.project.name })).results[0] ?? null;
      }
      const state = await readState(s, p, project);
      const resolved = await resolve(s, p, orgId, doc, state, body.secret_values ?? {});
      const databaseRefs = await resolveDatabaseRefs(s, deps.sealer, p, doc, state, locate);
      const problems = [...resolved.problems, ...databaseRefs.problems];
      if (problems.length > 0) {
        throw invalid(problems.map((x): ManifestProblem => ({ ...locate(x.path), message: x.message })).sort((a, b) => a.line - b.line || a.column - b.column));
      }
      const owners = new Map<string, string>();
      if (project) for (const [id, row] of await repo.ownersInProject(tx, project.id)) owners.set(id, row.file);
      const steps = plan({ doc, current: state, file, prune: body.prune ?? false, owners, secrets: resolved.secrets, databaseRefs: databaseRefs.refs });
      const changes = steps.map((x) => x.change);
      const result: ApplyResult = {
        dry_run: dryRun, file, project: { id: project?.id ?? null, name: doc.project.name },
        summary: summarize(changes), changes, deployments: [],
      };
      if (dryRun) return result;
      const done = await execute({ s, p, orgId, file, refs: resolved.refs, secrets: resolved.secrets, sealer: deps.sealer, locate }, steps, project?.id ?? null);
      await recordOwnership(tx, orgId, done.projectId, file, done.owned, done.disowned);
      result.project.id = done.projectId;
      if (body.deploy) {
        for (const svc of done.changed) {
          if (svc.kind === 'workflows') continue; // a workflow deploys as its runs start (webhook, schedule)
          const d = await s.deployments.act(p, svc.id, TYPE_OF[svc.kind], LABEL_OF[svc.kind], 'DEPLOY');
          result.deployments.push({ service_id: svc.id, name: svc.name, deployment_id: d.id });
        }
      }
      return result;
    });
  }

  return {
    async applyToOrganization(p, organizationId, body, dryRun) {
      await deps.organizations.authorize(p, organizationId, dryRun ? 'read' : 'write');
      return run(p, { organizationId, projectId: null }, body, dryRun);
    },
    async applyToProject(p, projectId, body, dryRun) {
      const project = await services.projects.resolve(p, projectId, dryRun ? 'read' : 'write');
      return run(p, { organizationId: project.organization.id, projectId }, body, dryRun);
    },
    async exportEnvironment(p, environmentId) {
      const env = await deps.scope.environment(p, environmentId, 'read');
      const project = await services.projects.get(p, env.projectId);
      const state = await readState(services, p, project);
      if (!state.environments.some((e) => e.id === environmentId)) throw conflict('A preview or throwaway copy is not exported; export the environment it was made from');
      return documentToYaml(stateToDocument(state, [environmentId], await references(project.id)));
    },
    async exportProject(p, projectId) {
      const project = await services.projects.get(p, projectId);
      return documentToYaml(stateToDocument(await readState(services, p, project), undefined, await references(project.id)));
    },
  };
}
