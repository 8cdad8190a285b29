// Bulk import of variables into a service and the scopes above it (`vars[{name, value, scope,
// is_secret}]`, `overwrite`): every entry is checked first (one bad entry → 400, nothing
// written), then all are written in one transaction. Existing keys are skipped, or with
// `overwrite` get the new value, except secrets, aliases and secret imports (never overwritten).
import type { Db, Queryable } from '../../db/db.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { badRequest } from '../../lib/errors.ts';
import { ownerAbove, type Owner } from './owners.ts';
import * as repo from './variables.repo.ts';
import { keyProblem } from './variables.rules.ts';
import type { VariableImport, VariableImportRequest } from './variables.schemas.ts';

/** what variables ask of the services module (its table): deployed services a change affects become
 * OUT_OF_DATE; declared here, given by the composition root (the services service is made later) */
export interface ServicesOutOfDate {
  markOutOfDate(tx: Queryable, level: 'project' | 'environment' | 'service', parentId: string): Promise<void>;
}

export async function importVariables(db: Db, sealer: Sealer, services: ServicesOutOfDate, service: Owner, body: VariableImportRequest): Promise<VariableImport> {
  const seen = new Set<string>();
  const items = body.vars.map((v, i) => {
    const problem = keyProblem(v.name);
    if (problem) throw badRequest(`vars[${i}].name: ${problem.replace(/^key /, '')}`);
    let target: Owner;
    if (v.scope === 'PROJECT') target = ownerAbove(service, 'project');
    else if (v.scope === 'ENVIRONMENT') target = ownerAbove(service, 'environment');
    else if (v.scope === service.kind.scope) target = service;
    else throw badRequest(`vars[${i}].scope must be PROJECT, ENVIRONMENT or ${service.kind.scope}`);
    const id = `${target.id}/${v.name}`;
    if (seen.has(id)) throw badRequest(`vars[${i}].name: ${v.name} appears twice at scope ${v.scope}`);
    seen.add(id);
    return { ...v, target };
  });
  return db.transaction(async (tx) => {
    const imported: VariableImport['successful_imported_variables'] = [];
    const touched = new Map<string, Owner>();
    for (const it of items) {
      const existing = await repo.findByKey(tx, it.target.id, it.name);
      if (existing) {
        if (!body.overwrite || existing.is_secret || it.is_secret || existing.variable_type === 'ALIAS') continue;
        await repo.setClearValue(tx, existing.id, it.value);
      } else {
        await repo.insertVariable(tx, {
          organizationId: it.target.organizationId, projectId: it.target.projectId, environmentId: it.target.environmentId,
          serviceId: it.target.serviceId, parentId: it.target.id, scope: it.target.kind.scope, key: it.name, variableType: 'VALUE',
          isSecret: it.is_secret, value: it.is_secret ? null : it.value, valueSealed: it.is_secret ? sealer.seal(it.value) : null,
          mountPath: null, description: null, interpolation: null, targetId: null,
        });
      }
      imported.push(it.is_secret ? { name: it.name, scope: it.scope, is_secret: true } : { name: it.name, value: it.value, scope: it.scope, is_secret: false });
      touched.set(it.target.id, it.target);
    }
    for (const o of touched.values()) await services.markOutOfDate(tx, o.kind.level, o.id);
    return { total_variables_to_import: body.vars.length, successful_imported_variables: imported };
  });
}
