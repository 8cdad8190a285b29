// Request and response shapes of variables and secrets (the public API's EnvironmentVariable*,
// Secret*, Variable* schemas). Secret shapes have no value member at all; the generic
// VariableResponse carries `value: null` for secrets.
import { Type, type Static } from 'typebox';
import { BaseRecord, NullableString, PageQuery, Paginated, Uuid } from '../../http/schemas.ts';
import { VARIABLE_SCOPES } from './parents.ts';

const Key = Type.String({ description: 'case sensitive; letters, digits and underscores, starting with a letter; at most 255 characters; QOVERY_ and BERTH_ are reserved' });
const Value = Type.String();
const MountPath = Type.Optional(Type.Union([Type.String({ description: 'absolute path: the variable becomes a file mounted there' }), Type.Null()]));
const Description = Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()]));
const Interpolation = Type.Optional(Type.Union([Type.Boolean(), Type.Null()]));
const OneOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });
const Scope = OneOf(VARIABLE_SCOPES);
// response enums are typed as plain strings (rows carry text)
const AnyScope = OneOf<string>([...VARIABLE_SCOPES, 'BUILT_IN']);
const VariableType = OneOf<string>(['VALUE', 'FILE', 'ALIAS', 'OVERRIDE', 'BUILT_IN']);

// ---- requests

export const EnvironmentVariableRequest = Type.Object({
  key: Key, value: Value, mount_path: MountPath, description: Description, enable_interpolation_in_file: Interpolation,
}, { additionalProperties: false });
export type EnvironmentVariableRequest = Static<typeof EnvironmentVariableRequest>;

export const EnvironmentVariableEditRequest = Type.Object({
  key: Key, value: Type.Optional(Type.Union([Value, Type.Null()])), mount_path: MountPath, description: Description, enable_interpolation_in_file: Interpolation,
}, { additionalProperties: false });
export type EnvironmentVariableEditRequest = Static<typeof EnvironmentVariableEditRequest>;

export const SecretEditRequest = Type.Object({
  key: Key, value: Type.Optional(Type.Union([Value, Type.Null()])), description: Description, enable_interpolation_in_file: Interpolation,
}, { additionalProperties: false });

export const ValueRequest = Type.Object({ value: Value, description: Description, enable_interpolation_in_file: Interpolation }, { additionalProperties: false });
export const KeyRequest = Type.Object({ key: Key, description: Description, enable_interpolation_in_file: Interpolation }, { additionalProperties: false });

export const VariableRequest = Type.Object({
  key: Key, value: Value, is_secret: Type.Boolean(), variable_scope: Scope, variable_parent_id: Uuid,
  mount_path: MountPath, description: Description, enable_interpolation_in_file: Interpolation,
}, { additionalProperties: false });

export const VariableAliasRequest = Type.Object({
  key: Key, alias_scope: Scope, alias_parent_id: Uuid, description: Description, enable_interpolation_in_file: Interpolation,
}, { additionalProperties: false });

export const VariableOverrideRequest = Type.Object({
  value: Value, override_scope: Scope, override_parent_id: Uuid, description: Description, enable_interpolation_in_file: Interpolation,
}, { additionalProperties: false });

export const VariableListQuery = Type.Object({
  parent_id: Uuid, scope: Scope, is_secret: Type.Optional(Type.Boolean()), ...PageQuery.properties,
});
export const EffectiveQuery = Type.Object({ parent_id: Uuid, scope: Scope, ...PageQuery.properties });

// ---- responses

const LinkedVariable = Type.Object({
  id: Uuid, key: Type.String(), value: NullableString, mount_path: NullableString, scope: AnyScope, variable_type: VariableType,
});
const LinkedSecret = Type.Object({
  id: Uuid, key: Type.String(), mount_path: NullableString, scope: AnyScope, variable_type: VariableType,
  description: NullableString, enable_interpolation_in_file: Type.Union([Type.Boolean(), Type.Null()]),
});

const Common = {
  ...BaseRecord,
  key: Type.String(),
  scope: AnyScope,
  variable_type: VariableType,
  mount_path: NullableString,
  description: NullableString,
  enable_interpolation_in_file: Type.Union([Type.Boolean(), Type.Null()]),
  service_id: Type.Union([Uuid, Type.Null()]),
  service_name: NullableString,
  service_type: NullableString,
  owned_by: Type.String(),
};

export const EnvironmentVariable = Type.Object({
  ...Common,
  value: NullableString,
  overridden_variable: Type.Union([LinkedVariable, Type.Null()]),
  aliased_variable: Type.Union([LinkedVariable, Type.Null()]),
});
export const EnvironmentVariableList = Paginated(EnvironmentVariable);

export const Secret = Type.Object({
  ...Common,
  overridden_secret: Type.Union([LinkedSecret, Type.Null()]),
  aliased_secret: Type.Union([LinkedSecret, Type.Null()]),
});
export const SecretList = Paginated(Secret);

export const VariableResponse = Type.Object({
  ...Common,
  value: Type.Union([Type.String(), Type.Null()], { description: 'null for secrets' }),
  is_secret: Type.Boolean(),
  overridden_variable: Type.Union([LinkedVariable, Type.Null()]),
  aliased_variable: Type.Union([LinkedVariable, Type.Null()]),
});
export const VariableResponseList = Paginated(VariableResponse);

const EffectiveVariable = Type.Object({
  key: Type.String(),
  value: Type.Union([Type.String(), Type.Null()], { description: 'null for secrets' }),
  is_secret: Type.Boolean(),
  mount_path: NullableString,
  scope: AnyScope,
  variable_type: VariableType,
  variable_id: Type.Union([Uuid, Type.Null()], { description: 'null for built-ins' }),
});
export const EffectiveVariableList = Paginated(EffectiveVariable);

// ---- import (application, container, job routes and POST /variable/import)

export const VariableImportRequest = Type.Object({
  vars: Type.Array(Type.Object({
    name: Type.String(), value: Type.String(), scope: Scope, is_secret: Type.Boolean(),
  }, { additionalProperties: false }), { maxItems: 1000 }),
  overwrite: Type.Optional(Type.Boolean({ default: false, description: 'replace the value of an existing non-secret variable with the same key' })),
}, { additionalProperties: false });
export type VariableImportRequest = Static<typeof VariableImportRequest>;

export const VariableImport = Type.Object({
  total_variables_to_import: Type.Integer(),
  successful_imported_variables: Type.Array(Type.Object({
    name: Type.String(), value: Type.Optional(Type.String({ description: 'absent for secrets' })), scope: AnyScope, is_secret: Type.Boolean(),
  })),
});
export type VariableImport = Static<typeof VariableImport>;

export const ImportQuery = Type.Object({
  service_id: Uuid, service_type: OneOf(['APPLICATION', 'CONTAINER', 'JOB', 'HELM', 'TERRAFORM', 'AGENTIC_WORKFLOW']),
});
