// Public surface of the advanced-settings module: catalogue, defaults, TypeBox schemas, semantic
// rules and patch merging for applications, containers and jobs.

export { SERVICE_KINDS } from './types.ts';
export type { ServiceKind, SettingSpec, SettingType, SettingValue, ValueOfSpec } from './types.ts';
export {
  ADVANCED_SETTINGS_CATALOGUE,
  advancedSettingKeys,
  advancedSettingSpec,
  isAdvancedSettingKey,
} from './catalogue.ts';
export type {
  AdvancedSettingKey,
  AdvancedSettings,
  AdvancedSettingsCatalogue,
  AdvancedSettingsPatch,
  AnyAdvancedSettingKey,
} from './catalogue.ts';
export { cloneSettingValue, completeAdvancedSettings, defaultAdvancedSettings } from './defaults.ts';
export {
  advancedSettingsPatchSchema,
  advancedSettingsSchema,
  settingValueSchema,
  ApplicationAdvancedSettingsPatchSchema,
  ApplicationAdvancedSettingsSchema,
  ContainerAdvancedSettingsPatchSchema,
  ContainerAdvancedSettingsSchema,
  JobAdvancedSettingsPatchSchema,
  JobAdvancedSettingsSchema,
} from './schemas.ts';
export { RETRY_ON_VALUES, validateAdvancedSettings, validateAdvancedSettingsPatch } from './rules.ts';
export type { RuleResult } from './rules.ts';
export { applyAdvancedSettingsPatch } from './merge.ts';
