// Public surface of the advanced-settings module: catalogue, defaults, TypeBox schemas, semantic
// rules and patch merging for applications, containers and jobs.

export type { ServiceKind, SettingValue } from './types.ts';
export { ADVANCED_SETTINGS_CATALOGUE, advancedSettingKeys } from './catalogue.ts';
export type { AnyAdvancedSettingKey } from './catalogue.ts';
export { completeAdvancedSettings, defaultAdvancedSettings } from './defaults.ts';
export {
  ApplicationAdvancedSettingsPatchSchema,
  ApplicationAdvancedSettingsSchema,
  ContainerAdvancedSettingsPatchSchema,
  ContainerAdvancedSettingsSchema,
  JobAdvancedSettingsPatchSchema,
  JobAdvancedSettingsSchema,
} from './schemas.ts';
export { validateAdvancedSettings, validateAdvancedSettingsPatch } from './rules.ts';
export { applyAdvancedSettingsPatch } from './merge.ts';
