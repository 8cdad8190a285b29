// From a stored row to the three public shapes: EnvironmentVariable, Secret (no value member) and
// the generic VariableResponse (value null for secrets). An alias shows the value of the
// variable it points at; a secret's value is never part of any view.
import type { Static } from 'typebox';
import { iso, isoRequired } from '../../lib/text.ts';
import type { VariableRow } from './variables.repo.ts';
import type { EnvironmentVariable, Secret, VariableResponse } from './variables.schemas.ts';

const OWNED_BY = 'berth';

type Linked = NonNullable<Static<typeof EnvironmentVariable>['aliased_variable']>;
type LinkedSecret = NonNullable<Static<typeof Secret>['aliased_secret']>;

function common(r: VariableRow) {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), key: r.key,
    scope: r.scope, variable_type: r.variable_type, mount_path: r.mount_path,
    description: r.description, enable_interpolation_in_file: r.enable_interpolation_in_file,
    service_id: r.service_id, service_name: r.service_name, service_type: r.service_type, owned_by: OWNED_BY,
  };
}

function linked(r: VariableRow): Linked | null {
  if (!r.target_id) return null;
  return {
    id: r.target_id, key: r.t_key!, value: r.is_secret ? null : r.t_value, mount_path: r.t_mount_path,
    scope: r.t_scope!, variable_type: r.t_variable_type!,
  };
}

function linkedSecret(r: VariableRow): LinkedSecret | null {
  if (!r.target_id) return null;
  return {
    id: r.target_id, key: r.t_key!, mount_path: r.t_mount_path, scope: r.t_scope!, variable_type: r.t_variable_type!,
    description: r.t_description, enable_interpolation_in_file: r.t_interpolation,
  };
}

/** the clear value shown for a non-secret: its own, or the aliased variable's */
function shownValue(r: VariableRow): string | null {
  if (r.is_secret) return null;
  return r.variable_type === 'ALIAS' ? r.t_value : r.value;
}

export function toEnvironmentVariable(r: VariableRow): Static<typeof EnvironmentVariable> {
  return {
    ...common(r), value: shownValue(r),
    overridden_variable: r.variable_type === 'OVERRIDE' ? linked(r) : null,
    aliased_variable: r.variable_type === 'ALIAS' ? linked(r) : null,
  };
}

export function toSecret(r: VariableRow): Static<typeof Secret> {
  return {
    ...common(r),
    overridden_secret: r.variable_type === 'OVERRIDE' ? linkedSecret(r) : null,
    aliased_secret: r.variable_type === 'ALIAS' ? linkedSecret(r) : null,
  };
}

export function toVariableResponse(r: VariableRow): Static<typeof VariableResponse> {
  return {
    ...common(r), value: shownValue(r), is_secret: r.is_secret,
    overridden_variable: r.variable_type === 'OVERRIDE' ? linked(r) : null,
    aliased_variable: r.variable_type === 'ALIAS' ? linked(r) : null,
  };
}
