// Default advanced settings per service kind, read from the catalogue. Every call returns a fresh,
// mutable object (arrays and maps copied), so callers may change it without touching the catalogue.

import {
  ADVANCED_SETTINGS_CATALOGUE,
  advancedSettingKeys,
  type AdvancedSettings,
  type AnyAdvancedSettingKey,
} from './catalogue.ts';
import type { ServiceKind, SettingValue } from './types.ts';

/** A copy of a setting value: arrays and string maps are copied, scalars returned as they are. */
export function cloneSettingValue<V extends SettingValue>(value: V): V {
  if (Array.isArray(value)) return [...value] as unknown as V;
  if (value !== null && typeof value === 'object') return { ...value } as V;
  return value;
}

/** The default advanced settings of a kind: every key of the kind, in presentation order. */
export function defaultAdvancedSettings<K extends ServiceKind>(kind: K): AdvancedSettings<K> {
  const settings: Record<string, SettingValue> = {};
  for (const key of advancedSettingKeys(kind)) {
    settings[key] = cloneSettingValue(ADVANCED_SETTINGS_CATALOGUE[key as AnyAdvancedSettingKey].default);
  }
  return settings as AdvancedSettings<K>;
}

/**
 * Completes settings read from storage: keys of the kind missing from `stored` (e.g. stored before a
 * key was added to the catalogue) take their default, keys the kind does not know are dropped.
 * Stored values are trusted as they are (they were validated when written).
 */
export function completeAdvancedSettings<K extends ServiceKind>(
  kind: K,
  stored: Readonly<Record<string, unknown>> | null | undefined,
): AdvancedSettings<K> {
  const settings: Record<string, SettingValue> = defaultAdvancedSettings(kind);
  if (stored === null || stored === undefined) return settings as AdvancedSettings<K>;
  for (const key of advancedSettingKeys(kind)) {
    if (Object.hasOwn(stored, key) && stored[key] !== undefined) {
      settings[key] = cloneSettingValue(stored[key] as SettingValue);
    }
  }
  return settings as AdvancedSettings<K>;
}
