// Variables and secrets of projects, environments and services: who may read or write them
// (VIEWER reads, DEVOPS writes), key and mount-path rules, aliases and overrides across scopes,
// sealing of secret values, and the deployed services a change makes OUT_OF_DATE (same
// transaction). Every owner kind comes from the PARENT_KINDS table.
import type { Db } from '../../db/db.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import type { ScopeService } from '../scope/scope.service.ts';
import { effectiveForView } from './effective.ts';
import type { EffectiveVariable } from './effective.rules.ts';
import { createOwnerResolver, type Owner } from './owners.ts';
import { importVariables, type ServicesOutOfDate } from './variables.import.ts';
import type { VariableImport, VariableImportRequest } from './variables.schemas.ts';
import { kindOfScope } from './parents.ts';
import * as repo from './variables.repo.ts';
import { derivationProblem, keyProblem, mountPathProblem } from './variables.rules.ts';

export { resolveEffectiveVariables } from './effective.ts';
export { copyVariables } from './clone.ts';

/** which variables a route sees: the environmentVariable routes, the secret routes, or /variable */
type Flavor = 'variable' | 'secret' | 'any';

interface CreateInput {
  key: string; value: string; is_secret: boolean; mount_path?: string | null; description?: string | null; enable_interpolation_in_file?: boolean | null;
}
interface EditInput {
  key: string; value?: string | null; mount_path?: string | null; description?: string | null; enable_interpolation_in_file?: boolean | null;
}
interface DeriveExtras { description?: string | null; enable_interpolation_in_file?: boolean | null }

export interface VariablesService {
  list(p: Principal, scope: string, parentId: string, flavor: Flavor, req: PageRequest, isSecret?: boolean): Promise<{ results: repo.VariableRow[]; pagination: PageInfo }>;
  create(p: Principal, scope: string, parentId: string, input: CreateInput): Promise<repo.VariableRow>;
  /** owner null: the /variable/{id} routes (the variable's own organization is checked) */
  edit(p: Principal, owner: { scope: string; id: string } | null, variableId: string, flavor: Flavor, input: EditInput): Promise<repo.VariableRow>;
  remove(p: Principal, owner: { scope: string; id: string } | null, variableId: string, flavor: Flavor): Promise<void>;
  alias(p: Principal, scope: string, parentId: string, targetId: string, flavor: Flavor, key: string, extras: DeriveExtras): Promise<repo.VariableRow>;
  override(p: Principal, scope: string, parentId: string, targetId: string, flavor: Flavor, value: string, extras: DeriveExtras): Promise<repo.VariableRow>;
  effective(p: Principal, scope: string, parentId: string, req: PageRequest): Promise<{ results: EffectiveVariable[]; pagination: PageInfo }>;
  /** bulk import into a service (scope = its type) and the scopes above it */
  import(p: Principal, scope: string, serviceId: string, body: VariableImportRequest): Promise<VariableImport>;
  /** for the manifests module (decision 0745): the secrets (values, not aliases or overrides) of these owners, at most three (a
   * service, its environment, its project), with their plain values, to fingerprint them and to resolve `secret:NAME`
   * references; never answered to a client. No authorization: the caller has authorized the owners */
  secretValues(owners: readonly string[]): Promise<Array<{ id: string; parent_id: string; key: string; value: string }>>;
}

export function createVariablesService(deps: {
  db: Db; sealer: Sealer; scope: ScopeService; organizations: OrganizationsService;
  /** the services module, whose rows become OUT_OF_DATE when their variables change */
  services: ServicesOutOfDate;
}): VariablesService {
  const { db, sealer, organizations } = deps;
  const resolveOwner = createOwnerResolver(deps);

  /** the stored variable, 404 when missing, of another flavor, or (with an owner) not owned by it */
  async function loadVariable(variableId: string, flavor: Flavor, ownerId: string | null, visibleFrom?: Owner): Promise<repo.VariableRow> {
    const row = await repo.findVariable(db, variableId);
    const label = flavor === 'secret' ? 'Secret' : flavor === 'variable' ? 'Environment variable' : 'Variable';
    if (!row || (flavor === 'secret' && !row.is_secret) || (flavor === 'variable' && row.is_secret)) throw notFound(label);
    if (ownerId !== null && row.parent_id !== ownerId) throw notFound(label);
    if (visibleFrom && row.organization_id !== visibleFrom.organizationId) throw notFound(label);
    return row;
  }

  function checkKey(key: string): void {
    const problem = keyProblem(key);
    if (problem) throw badRequest(problem);
  }

  function checkMountPath(path: string | null | undefined): void {
    if (path === null || path === undefined) return;
    const problem = mountPathProblem(path);
    if (problem) throw badRequest(problem);
  }

  async function ownerOfRow(p: Principal, row: repo.VariableRow): Promise<void> {
    await organizations.authorize(p, row.organization_id, 'write');
  }

  function levelOf(scopeName: string): 'project' | 'environment' | 'service' {
    return kindOfScope(scopeName).level;
  }

  async function reload(id: string): Promise<repo.VariableRow> {
    const row = await repo.findVariable(db, id);
    if (!row) throw notFound('Variable');
    return row;
  }

  function newRow(owner: Owner): Pick<repo.NewVariable, 'organizationId' | 'projectId' | 'environmentId' | 'serviceId' | 'parentId' | 'scope'> {
    return {
      organizationId: owner.organizationId, projectId: owner.projectId, environmentId: owner.environmentId,
      serviceId: owner.serviceId, parentId: owner.id, scope: owner.kind.scope,
    };
  }

  async function derive(p: Principal, kind: 'ALIAS' | 'OVERRIDE', scopeName: string, parentId: string, targetId: string, flavor: Flavor,
    fields: { key?: string; value?: string }, extras: DeriveExtras): Promise<repo.VariableRow> {
    const owner = await resolveOwner(p, scopeName, parentId, 'write');
    const target = await loadVariable(targetId, flavor, null, owner);
    const problem = derivationProblem(kind, target.variable_type, target.parent_id, owner.chain);
    if (problem) throw badRequest(problem);
    const key = kind === 'ALIAS' ? fields.key! : target.key;
    if (kind === 'ALIAS') checkKey(key);
    const id = await db.transaction(async (tx) => {
      if (await repo.keyTaken(tx, owner.id, key)) throw conflict(`Variable already exists: ${key}`);
      const value = kind === 'OVERRIDE' ? fields.value! : null;
      const id = await repo.insertVariable(tx, {
        ...newRow(owner), key, variableType: kind, isSecret: target.is_secret,
        value: target.is_secret ? null : value, valueSealed: target.is_secret && value !== null ? sealer.seal(value) : null,
        mountPath: kind === 'OVERRIDE' ? target.mount_path : null,
        description: extras.description ?? null, interpolation: extras.enable_interpolation_in_file ?? null, targetId: target.id,
      });
      await deps.services.markOutOfDate(tx, owner.kind.level, owner.id);
      return id;
    });
    return reload(id);
  }

  return {
    async list(p, scopeName, parentId, flavor, req, isSecret) {
      const owner = await resolveOwner(p, scopeName, parentId, 'read');
      const filter = flavor === 'secret' ? true : flavor === 'variable' ? false : (isSecret ?? null);
      const { rows, total } = await repo.listInChain(db, owner.chain, filter, req.limit, req.offset);
      return page(req, rows, total);
    },

    async create(p, scopeName, parentId, input) {
      const owner = await resolveOwner(p, scopeName, parentId, 'write');
      checkKey(input.key);
      checkMountPath(input.mount_path);
      const id = await db.transaction(async (tx) => {
        if (await repo.keyTaken(tx, owner.id, input.key)) throw conflict(`Variable already exists: ${input.key}`);
        const id = await repo.insertVariable(tx, {
          ...newRow(owner), key: input.key, variableType: input.mount_path ? 'FILE' : 'VALUE', isSecret: input.is_secret,
          value: input.is_secret ? null : input.value, valueSealed: input.is_secret ? sealer.seal(input.value) : null,
          mountPath: input.mount_path ?? null, description: input.description ?? null,
          interpolation: input.enable_interpolation_in_file ?? null, targetId: null,
        });
        await deps.services.markOutOfDate(tx, owner.kind.level, owner.id);
        return id;
      });
      return reload(id);
    },

    async edit(p, ownerRef, variableId, flavor, input) {
      let row: repo.VariableRow;
      if (ownerRef) {
        const owner = await resolveOwner(p, ownerRef.scope, ownerRef.id, 'write');
        row = await loadVariable(variableId, flavor, owner.id);
      } else {
        row = await loadVariable(variableId, flavor, null);
        await ownerOfRow(p, row);
      }
      const derived = row.variable_type === 'ALIAS' || row.variable_type === 'OVERRIDE';
      if (input.key !== row.key) {
        if (row.variable_type === 'OVERRIDE') throw badRequest('The key of an override cannot be changed');
        checkKey(input.key);
      }
      const valueSent = input.value !== undefined && input.value !== null;
      if (valueSent && row.variable_type === 'ALIAS') throw badRequest('The value of an alias cannot be changed; edit the aliased variable');
      let mountPath = row.mount_path;
      let variableType = row.variable_type;
      if (input.mount_path !== undefined && input.mount_path !== row.mount_path) {
        if (derived) throw badRequest('mount_path of an alias or override follows the variable it points at');
        checkMountPath(input.mount_path);
        mountPath = input.mount_path;
        variableType = mountPath ? 'FILE' : 'VALUE';
      }
      await db.transaction(async (tx) => {
        if (input.key !== row.key && await repo.keyTaken(tx, row.parent_id, input.key, row.id)) throw conflict(`Variable already exists: ${input.key}`);
        await repo.updateVariable(tx, row.id, {
          key: input.key, valueSent,
          value: valueSent && !row.is_secret ? input.value! : null,
          valueSealed: valueSent && row.is_secret ? sealer.seal(input.value!) : null,
          mountPath, variableType,
          description: input.description !== undefined ? input.description : row.description,
          interpolation: input.enable_interpolation_in_file !== undefined ? input.enable_interpolation_in_file : row.enable_interpolation_in_file,
        });
        await deps.services.markOutOfDate(tx, levelOf(row.scope), row.parent_id);
      });
      return reload(row.id);
    },

    async remove(p, ownerRef, variableId, flavor) {
      let row: repo.VariableRow;
      if (ownerRef) {
        const owner = await resolveOwner(p, ownerRef.scope, ownerRef.id, 'write');
        row = await loadVariable(variableId, flavor, owner.id);
      } else {
        row = await loadVariable(variableId, flavor, null);
        await ownerOfRow(p, row);
      }
      await db.transaction(async (tx) => {
        // aliases and overrides of it go too (foreign key cascade); they live at this owner or below
        await repo.deleteVariable(tx, row.id);
        await deps.services.markOutOfDate(tx, levelOf(row.scope), row.parent_id);
      });
    },

    alias(p, scopeName, parentId, targetId, flavor, key, extras) {
      return derive(p, 'ALIAS', scopeName, parentId, targetId, flavor, { key }, extras);
    },

    override(p, scopeName, parentId, targetId, flavor, value, extras) {
      return derive(p, 'OVERRIDE', scopeName, parentId, targetId, flavor, { value }, extras);
    },

    async effective(p, scopeName, parentId, req) {
      const owner = await resolveOwner(p, scopeName, parentId, 'read');
      const all = await effectiveForView(db, owner.chain, owner.serviceId);
      const items = req.limit === null ? all : all.slice(req.offset, req.offset + req.limit);
      return page(req, items, all.length);
    },

    async secretValues(owners) {
      if (owners.length === 0) return [];
      const rows = await repo.sealedInChain(db, owners);
      return rows.filter((r) => r.is_secret && r.target_id === null && r.value_sealed !== null)
        .map((r) => ({ id: r.id, parent_id: r.parent_id, key: r.key, value: sealer.open(r.value_sealed!) }));
    },

    async import(p, scopeName, serviceId, body) {
      if (kindOfScope(scopeName).level !== 'service') throw badRequest('Variables are imported into a service');
      return importVariables(db, sealer, deps.services, await resolveOwner(p, scopeName, serviceId, 'write'), body);
    },
  };
}
