// Semantic rules of advanced settings that JSON Schema cannot express (types, enums and bounds are
// the schema's job and are not repeated here). Pure functions returning the first violation.
//
// - whitelist/denylist_source_range: comma-separated CIDR lists (lib/cidr; 0.0.0.0/0 allowed;
//   empty allowed = no range).
// - gateway retry.http_status_codes: comma-separated integers 100..599; retry.retry_on:
//   comma-separated triggers from RETRY_ON_VALUES. Both must be non-empty (null unsets them).
// - extra_headers: a JSON object serialized in a string; names are HTTP tokens, values strings
//   without control characters (they end up in proxy configuration).
// - affinity.node.required: string to string map with Kubernetes label syntax.
// - exec commands: arrays of strings; when non-empty the first (the executable) is non-empty.
// - proxy_buffering / proxy_request_buffering: "on" or "off" (the nginx values).
// - basic_auth_env_var: empty or an environment variable name; service_account_name: empty or a
//   Kubernetes name (DNS subdomain).
// - every other string: no control characters (CR/LF would inject lines into proxy configuration).
// Cross-key check on the merged object (validateAdvancedSettings): a RollingUpdate may not have
// max_unavailable_percent and max_surge_percent both 0 (Kubernetes rejects it).

import { parseCommaSeparatedCidrs } from '../../../lib/cidr.ts';
import { advancedSettingSpec, isAdvancedSettingKey } from './catalogue.ts';
import type { ServiceKind } from './types.ts';

export type RuleResult = { readonly ok: true } | { readonly ok: false; readonly field: string; readonly message: string };

/**
 * Retry triggers accepted in network.gateway_api.retry.retry_on: the Envoy router's retry_on
 * policies for HTTP (connect-failure, reset, refused-stream, retriable-status-codes, 5xx,
 * gateway-error, retriable-4xx, retriable-headers, envoy-ratelimited, http3-post-connect-failure)
 * and its gRPC status policies (unavailable, cancelled, deadline-exceeded, resource-exhausted,
 * internal). Case-sensitive, as Envoy reads them.
 */
export const RETRY_ON_VALUES: readonly string[] = Object.freeze([
  'connect-failure', 'reset', 'refused-stream', 'retriable-status-codes', '5xx', 'gateway-error',
  'retriable-4xx', 'unavailable', 'cancelled', 'deadline-exceeded', 'resource-exhausted', 'internal',
  'retriable-headers', 'envoy-ratelimited', 'http3-post-connect-failure',
]);

const OK: RuleResult = Object.freeze({ ok: true });
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

type Check = (value: unknown) => string | undefined;

function fail(field: string, message: string): RuleResult {
  return { ok: false, field, message };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function splitList(text: string): string[] {
  return text.split(',').map((entry) => entry.trim());
}

const cidrList: Check = (value) => {
  if (typeof value !== 'string') return undefined;
  const parsed = parseCommaSeparatedCidrs(value);
  if (parsed.ok) return undefined;
  return `"${parsed.entry}" is not a valid CIDR range (${parsed.reason}); expected comma-separated CIDRs such as 10.0.0.0/8, 192.168.0.0/16`;
};

const statusCodes: Check = (value) => {
  if (typeof value !== 'string') return undefined;
  if (value.trim() === '') return 'must list at least one status code (use null to unset)';
  for (const entry of splitList(value)) {
    const code = /^[1-9][0-9]*$/.test(entry) ? Number(entry) : Number.NaN;
    if (!(code >= 100 && code <= 599)) return `"${entry}" is not an HTTP status code between 100 and 599`;
  }
  return undefined;
};

const retryOn: Check = (value) => {
  if (typeof value !== 'string') return undefined;
  if (value.trim() === '') return 'must list at least one retry trigger (use null to unset)';
  for (const entry of splitList(value)) {
    if (!RETRY_ON_VALUES.includes(entry)) return `"${entry}" is not a retry trigger; allowed: ${RETRY_ON_VALUES.join(', ')}`;
  }
  return undefined;
};

const extraHeaders: Check = (value) => {
  if (typeof value !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return 'must be a JSON object serialized into a string, e.g. "{\\"X-Frame-Options\\": \\"DENY\\"}"';
  }
  if (!isPlainObject(parsed)) return 'must be a JSON object serialized into a string (not an array or scalar)';
  for (const [name, headerValue] of Object.entries(parsed)) {
    if (!HTTP_TOKEN.test(name)) return `header name "${name}" is not a valid HTTP header name`;
    if (typeof headerValue !== 'string') return `value of header "${name}" must be a string`;
    if (CONTROL_CHARS.test(headerValue)) return `value of header "${name}" must not contain control characters`;
  }
  return undefined;
};

function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return `label "${key}" has an invalid prefix (a DNS subdomain is expected before "/")`;
  }
  if (name.length > 63 || !LABEL_NAME.test(name)) return `label "${key}" is not a valid Kubernetes label name`;
  return undefined;
}

const nodeLabels: Check = (value) => {
  if (!isPlainObject(value)) return 'must be an object of label name to label value';
  for (const [key, labelValue] of Object.entries(value)) {
    const problem = labelKeyProblem(key);
    if (problem !== undefined) return problem;
    if (typeof labelValue !== 'string') return `value of label "${key}" must be a string`;
    if (labelValue !== '' && (labelValue.length > 63 || !LABEL_NAME.test(labelValue))) {
      return `value of label "${key}" is not a valid Kubernetes label value`;
    }
  }
  return undefined;
};

const execCommand: Check = (value) => {
  if (!Array.isArray(value) || value.some((part) => typeof part !== 'string')) return 'must be an array of strings';
  if (value.length > 0 && value[0] === '') return 'the first element (the executable) must not be empty';
  if (value.some((part: string) => part.includes('\u0000'))) return 'must not contain NUL characters';
  return undefined;
};

const onOff: Check = (value) => {
  if (typeof value !== 'string') return undefined;
  return value === 'on' || value === 'off' ? undefined : 'must be "on" or "off"';
};

const envVarName: Check = (value) => {
  if (typeof value !== 'string' || value === '') return undefined;
  return ENV_VAR_NAME.test(value) ? undefined : 'must be an environment variable name (letters, digits, underscore; not starting with a digit)';
};

const kubernetesName: Check = (value) => {
  if (typeof value !== 'string' || value === '') return undefined;
  return value.length <= 253 && DNS_SUBDOMAIN.test(value)
    ? undefined
    : 'must be a Kubernetes name: lowercase letters, digits, "-" and ".", starting and ending with a letter or digit';
};

const noControlChars: Check = (value) => {
  if (typeof value !== 'string') return undefined;
  return CONTROL_CHARS.test(value) ? 'must not contain control characters (such as line breaks)' : undefined;
};

const KEY_CHECKS: Readonly<Record<string, Check>> = {
  'network.ingress.whitelist_source_range': cidrList,
  'network.ingress.denylist_source_range': cidrList,
  'network.gateway_api.retry.http_status_codes': statusCodes,
  'network.gateway_api.retry.retry_on': retryOn,
  'network.ingress.extra_headers': extraHeaders,
  'deployment.affinity.node.required': nodeLabels,
  'deployment.lifecycle.post_start_exec_command': execCommand,
  'deployment.lifecycle.pre_stop_exec_command': execCommand,
  'network.ingress.proxy_buffering': onOff,
  'network.ingress.proxy_request_buffering': onOff,
  'network.ingress.basic_auth_env_var': envVarName,
  'security.service_account_name': kubernetesName,
};

/**
 * Semantic checks of a (schema-valid) patch or full settings object of one kind. Keys unknown to
 * the kind are reported too, so the function is safe on its own. null values pass (nullability is
 * the schema's). Returns the first violation, in the patch's key order.
 */
export function validateAdvancedSettingsPatch(kind: ServiceKind, patch: Readonly<Record<string, unknown>>): RuleResult {
  for (const [field, value] of Object.entries(patch)) {
    if (!isAdvancedSettingKey(kind, field)) return fail(field, `unknown advanced setting for a ${kind}`);
    if (value === null || value === undefined) continue;
    const check = KEY_CHECKS[field] ?? (advancedSettingSpec(field)?.type === 'string' ? noControlChars : undefined);
    const message = check?.(value);
    if (message !== undefined) return fail(field, message);
  }
  return OK;
}

/** Cross-key invariants of a complete (merged) settings object; run after applyAdvancedSettingsPatch. */
export function validateAdvancedSettings(kind: ServiceKind, settings: Readonly<Record<string, unknown>>): RuleResult {
  const perKey = validateAdvancedSettingsPatch(kind, settings);
  if (!perKey.ok) return perKey;
  const unavailable = 'deployment.update_strategy.rolling_update.max_unavailable_percent';
  const surge = 'deployment.update_strategy.rolling_update.max_surge_percent';
  if (settings['deployment.update_strategy.type'] === 'RollingUpdate' && settings[unavailable] === 0 && settings[surge] === 0) {
    return fail(unavailable, `${unavailable} and ${surge} cannot both be 0 for a RollingUpdate`);
  }
  return OK;
}
