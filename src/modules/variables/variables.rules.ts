// Pure rules of variables: what a key and a file mount path may look like, and the scope rules
// of aliases and overrides. No I/O; the service turns a returned message into a 400.

const KEY_MAX_LENGTH = 255;
const RESERVED_PREFIXES = ['QOVERY_', 'BERTH_'] as const;
const MOUNT_PATH_MAX_LENGTH = 1024;

const KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;

/** null when the key is acceptable, else the reason (never containing a value) */
export function keyProblem(key: string): string | null {
  if (key.length === 0) return 'key must not be empty';
  if (key.length > KEY_MAX_LENGTH) return `key must be at most ${KEY_MAX_LENGTH} characters`;
  if (!KEY_PATTERN.test(key)) return 'key must start with a letter and contain only letters, digits and underscores';
  const reserved = RESERVED_PREFIXES.find((p) => key.toUpperCase().startsWith(p));
  if (reserved) return `key must not start with ${reserved}: the prefix is reserved for built-in variables`;
  return null;
}

/** null when the mount path is an acceptable absolute file path, else the reason */
export function mountPathProblem(path: string): string | null {
  if (path.length > MOUNT_PATH_MAX_LENGTH) return `mount_path must be at most ${MOUNT_PATH_MAX_LENGTH} characters`;
  if (!path.startsWith('/')) return 'mount_path must be an absolute path (starting with /)';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'mount_path must not contain control characters';
  const segments = path.slice(1).split('/');
  if (segments.some((s) => s === '')) return 'mount_path must name a file: no empty segments and no trailing /';
  if (segments.some((s) => s === '.' || s === '..')) return 'mount_path must not contain . or .. segments';
  return null;
}

const HIERARCHY = 'BUILT_IN > PROJECT > ENVIRONMENT > APPLICATION/CONTAINER/JOB/HELM/TERRAFORM/AGENTIC_WORKFLOW';

export const ALIAS_SCOPE_MESSAGE = `Can't create an alias on a higher scope. Aliases can only be created from one scope to the same or a lower scope. Scope hierarchy is ${HIERARCHY}`;
export const OVERRIDE_SCOPE_MESSAGE = `Can't create an override on a higher scope. Overrides can only be created from one scope to a lower scope. Scope hierarchy is ${HIERARCHY}`;

/**
 * Where an alias or override may be created. `chain` holds the ids of the new variable's owner and
 * its ancestors (project, environment, service); the target's owner must be in it (aliases: the
 * same owner or an ancestor; overrides: a strict ancestor). Returns the 400 message or null.
 */
export function derivationProblem(kind: 'ALIAS' | 'OVERRIDE', targetType: string, targetParentId: string, chain: readonly string[]): string | null {
  if (targetType === 'ALIAS') return kind === 'ALIAS' ? 'Cannot create an alias of an alias' : 'Cannot override an alias; override the aliased variable';
  const at = chain.indexOf(targetParentId);
  if (at < 0) return kind === 'ALIAS' ? ALIAS_SCOPE_MESSAGE : OVERRIDE_SCOPE_MESSAGE;
  if (kind === 'OVERRIDE' && at === chain.length - 1) return OVERRIDE_SCOPE_MESSAGE;
  return null;
}
