// The untranslated-key reporting of the compose import (decision 0746: nothing dropped silently):
// why each top-level and service key berth does not translate is left out, the context every
// translator notes into, and `${VAR}` interpolation from .env (an unset variable is noted too).
import type { TranslateOptions, Untranslated } from './model.ts';
import { interpolate } from './values.ts';

export const TOP_LEVEL_WHY: Record<string, string> = {
  version: 'obsolete in the Compose Specification; it selects nothing',
  networks: 'berth puts every service of an environment on one private network, where each is reached by its name',
  configs: 'berth has no configs; put the content in a variable (mount_path makes it a file) in berth.yaml',
  secrets: 'compose secrets are files on the host; in berth.yaml a secret is a reference (env:NAME or an existing secret)',
  include: 'included compose files are not read; import each one',
};

export const SERVICE_WHY: Record<string, string> = {
  restart: 'berth always restarts a service that stops (its engine sets the restart policy)',
  container_name: 'berth names containers after the service and environment',
  hostname: 'a service is reached by its name on the environment\'s network',
  networks: 'berth puts every service of an environment on one private network, where each is reached by its name',
  labels: 'container labels are berth\'s own; use labels_groups in berth.yaml',
  links: 'a service is reached by its name on the environment\'s network',
  profiles: 'every service of the file is imported; delete the ones you do not want',
  extra_hosts: 'not supported by berth',
  volumes_from: 'not supported by berth',
  privileged: 'berth does not run privileged containers',
  cap_add: 'berth does not add capabilities',
  user: 'set the user in the Dockerfile',
  working_dir: 'set WORKDIR in the Dockerfile',
  stop_grace_period: 'berth\'s termination grace period is an advanced setting (deployment.termination_grace_period_seconds)',
  platform: 'berth picks the architecture from its cluster (cpu_architecture)',
  pull_policy: 'berth pulls the image it deploys',
  logging: 'berth keeps every service\'s logs itself',
};

/** a key with an explanation, for services whose key has none of its own */
export const GENERIC_WHY = 'not supported by berth';

export interface Context {
  untranslated: Untranslated[];
  options: TranslateOptions;
  dotEnv: Map<string, string>;
}

export const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const note = (ctx: Context, key: string, why: string) => { ctx.untranslated.push({ key, why }); };

export function text(ctx: Context, key: string, value: unknown): string {
  const s = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
  const r = interpolate(s, ctx.dotEnv);
  for (const name of r.missing) note(ctx, key, `\${${name}} is interpolated from the shell running compose and is not set in .env; its value is left empty`);
  return r.value;
}
