// Ingress-only advanced settings (network.ingress.*) take effect at once (issue 30, decision 0337):
// an edit that changes only those keys leaves the service UP_TO_DATE and the engine applies them to
// the service's running routes right after the edit is stored; a change to any other key marks
// the service OUT_OF_DATE as before (next deployment). When the engine cannot apply them (its
// ingress is unreachable), the service is marked OUT_OF_DATE too, so the next deployment does.
import type { Platform } from '../../platform.ts';
import { resolveEffectiveVariables } from '../variables/effective.ts';
import { markOutOfDate, type ServiceRow } from './services.repo.ts';

export const isIngressKey = (key: string): boolean => key.startsWith('network.ingress.');

/** the keys whose values differ between two complete settings objects */
export function changedKeys(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

/**
 * Hands the engine the service's complete settings and, when basic auth names one, that variable's
 * value (secrets opened here as for a deployment; never logged). Errors do not fail the edit.
 */
export type IngressApplyDeps = Pick<Platform, 'db' | 'sealer' | 'logger'> & { engine: Pick<Platform['engine'], 'applyIngressSettings'> };

export async function applyIngressSettingsNow(ctx: IngressApplyDeps, row: ServiceRow, settings: Readonly<Record<string, unknown>>): Promise<void> {
  try {
    const variable = settings['network.ingress.basic_auth_env_var'];
    const env: Record<string, string> = {};
    if (typeof variable === 'string' && variable !== '') {
      const found = (await resolveEffectiveVariables(ctx.db, ctx.sealer, row.id)).find((v) => v.key === variable && !v.mount_path);
      if (found) env[variable] = found.value;
    }
    const notes = await ctx.engine.applyIngressSettings({ id: row.id, advancedSettings: { ...settings }, env });
    for (const note of notes) ctx.logger.warn({ serviceId: row.id }, `ingress settings: ${note}`);
  } catch (err) {
    ctx.logger.warn({ serviceId: row.id, err: (err as Error).message }, 'ingress settings could not be applied to the running service: it is marked OUT_OF_DATE, the next deployment applies them');
    await markOutOfDate(ctx.db, row.id).catch(() => {});
  }
}
