// TypeBox schemas of advanced settings, built from the catalogue: per service kind, the full object
// (every key required; GET response, defaults response, full-replacement PUT body) and the patch
// (every key optional). An unknown key is rejected: the patch says additionalProperties {not: {}}
// because the HTTP layer's Ajv strips (rather than refuses) members where it says false.
//
// The output is plain JSON Schema for Fastify's Ajv and fast-json-stringify: no codecs/transforms,
// nullable values as anyOf [T, null], string maps as additionalProperties {type: string}.
// Defaults are written into the descriptions, not as `default` keywords: with Ajv's useDefaults a
// `default` would fill omitted keys of a patch and silently reset them.
// Caveat for the HTTP layer: Fastify's default Ajv option removeAdditional:true strips unknown keys
// instead of rejecting them; set removeAdditional:false for these bodies to be refused.

import { Type, type TSchema, type TUnsafe } from 'typebox';
import {
  ADVANCED_SETTINGS_CATALOGUE,
  advancedSettingKeys,
  type AdvancedSettings,
  type AdvancedSettingsPatch,
  type AnyAdvancedSettingKey,
} from './catalogue.ts';
import type { ServiceKind, SettingSpec } from './types.ts';

const KIND_TITLES: Readonly<Record<ServiceKind, string>> = {
  application: 'Application',
  container: 'Container',
  job: 'Job',
};

function describe(spec: SettingSpec): string {
  return `${spec.meaning} Default: ${JSON.stringify(spec.default)}.`;
}

function baseSchema(spec: SettingSpec, options: { description?: string }): TSchema {
  switch (spec.type) {
    case 'boolean':
      return Type.Boolean(options);
    case 'integer': {
      const bounds: { minimum?: number; maximum?: number } = {};
      if (spec.minimum !== undefined) bounds.minimum = spec.minimum;
      if (spec.maximum !== undefined) bounds.maximum = spec.maximum;
      return Type.Integer({ ...bounds, ...options });
    }
    case 'string':
      return spec.enum === undefined ? Type.String(options) : Type.Enum([...spec.enum], { type: 'string', ...options });
    case 'string-array':
      return Type.Array(Type.String(), options);
    case 'string-map':
      return Type.Unsafe<Record<string, string>>({ type: 'object', additionalProperties: { type: 'string' }, ...options });
  }
}

/** JSON schema of the value of one setting, with its description. */
function settingValueSchema(spec: SettingSpec): TSchema {
  const description = describe(spec);
  if (spec.nullable === true) return Type.Union([baseSchema(spec, {}), Type.Null()], { description });
  return baseSchema(spec, { description });
}

function buildObject(kind: ServiceKind, optional: boolean): TSchema {
  const properties: Record<string, TSchema> = {};
  for (const key of advancedSettingKeys(kind)) {
    const value = settingValueSchema(ADVANCED_SETTINGS_CATALOGUE[key as AnyAdvancedSettingKey]);
    properties[key] = optional ? Type.Optional(value) : value;
  }
  const title = KIND_TITLES[kind];
  return Type.Object(properties, {
    additionalProperties: optional ? Type.Never() : false,
    description: optional
      ? `Changes to the ${kind} advanced settings: only the keys sent change; null resets a nullable key. Unknown keys are rejected.`
      : `The ${kind} advanced settings: a flat object whose keys contain dots; every key is present.`,
    title: optional ? `${title}AdvancedSettingsPatch` : `${title}AdvancedSettings`,
  });
}

/** Full advanced-settings object of a kind: every key required, no other key allowed. */
export function advancedSettingsSchema<K extends ServiceKind>(kind: K): TUnsafe<AdvancedSettings<K>> {
  return Type.Unsafe<AdvancedSettings<K>>(buildObject(kind, false));
}

/** Patch of a kind's advanced settings: every key optional, no other key allowed. */
export function advancedSettingsPatchSchema<K extends ServiceKind>(kind: K): TUnsafe<AdvancedSettingsPatch<K>> {
  return Type.Unsafe<AdvancedSettingsPatch<K>>(buildObject(kind, true));
}

export const ApplicationAdvancedSettingsSchema = advancedSettingsSchema('application');
export const ApplicationAdvancedSettingsPatchSchema = advancedSettingsPatchSchema('application');
export const ContainerAdvancedSettingsSchema = advancedSettingsSchema('container');
export const ContainerAdvancedSettingsPatchSchema = advancedSettingsPatchSchema('container');
export const JobAdvancedSettingsSchema = advancedSettingsSchema('job');
export const JobAdvancedSettingsPatchSchema = advancedSettingsPatchSchema('job');
