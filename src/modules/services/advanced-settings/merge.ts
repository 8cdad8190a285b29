// Merging a validated patch into current advanced settings: the keys sent change, the others stay.
// Pure: neither argument is modified; the result shares no array or map with them.

import { cloneSettingValue } from './defaults.ts';
import type { SettingValue } from './types.ts';

/**
 * Returns `current` with the keys present in `patch` replaced. A key sent as `null` becomes null
 * (the schema only admits null for nullable keys); a key whose value is `undefined` counts as not
 * sent. Validation (schema, then validateAdvancedSettingsPatch) is the caller's job and comes first.
 */
export function applyAdvancedSettingsPatch<T extends { [key: string]: SettingValue }>(
  current: T,
  patch: Partial<T> | Readonly<Record<string, SettingValue | undefined>>,
): T {
  const next: Record<string, SettingValue> = {};
  for (const [key, value] of Object.entries(current)) next[key] = cloneSettingValue(value);
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    next[key] = cloneSettingValue(value as SettingValue);
  }
  return next as T;
}
