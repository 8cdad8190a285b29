// Shapes of the advanced-settings catalogue: the service kinds that carry advanced settings, the
// descriptor of one setting, and the type-level mapping from a descriptor to its TypeScript value.

export const SERVICE_KINDS = ['application', 'container', 'job'] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];

/**
 * Value families. `string-array` is a JSON array of strings (exec commands); `string-map` is a JSON
 * object whose values are strings (node selector labels).
 */
type SettingType = 'boolean' | 'integer' | 'string' | 'string-array' | 'string-map';

export type SettingValue = boolean | number | string | readonly string[] | Readonly<Record<string, string>> | null;

export interface SettingSpec {
  readonly type: SettingType;
  /** null is a valid value (it means "not set": the platform or Kubernetes default applies) */
  readonly nullable?: boolean;
  /** allowed values of a string setting */
  readonly enum?: readonly string[];
  /** inclusive bounds of an integer setting */
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default: SettingValue;
  /** one-line meaning, used as the OpenAPI description */
  readonly meaning: string;
  /** service kinds that carry this key */
  readonly kinds: readonly ServiceKind[];
}

type BaseValueOf<S> = S extends { readonly type: 'boolean' }
  ? boolean
  : S extends { readonly type: 'integer' }
    ? number
    : S extends { readonly type: 'string'; readonly enum: readonly (infer E)[] }
      ? E
      : S extends { readonly type: 'string' }
        ? string
        : S extends { readonly type: 'string-array' }
          ? string[]
          : S extends { readonly type: 'string-map' }
            ? Record<string, string>
            : never;

/** TypeScript type of the value of one setting descriptor. */
export type ValueOfSpec<S> = S extends { readonly nullable: true } ? BaseValueOf<S> | null : BaseValueOf<S>;
