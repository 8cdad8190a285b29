// berth settings <service>: the advanced settings of an application, container or job, each with
// whether the running engine applies it and, when it does not, why (…/advancedSettings/engineSupport,
// docs/advanced-settings.md); --json gives {engine, settings: [{key, value, applied, reason}]}.
import { ok } from '../api.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { color, printJson, printTable } from '../output.ts';
import * as resolve from '../resolve.ts';
import { openSession } from '../session.ts';
import type { TargetOptions } from './services.ts';

interface Support { engine: string; results: Array<{ key: string; applied: boolean; reason: string | null }> }

const shown = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

export async function settings(ref: string, opts: TargetOptions): Promise<void> {
  const s = openSession(opts);
  const t = await resolve.target(s.api, s.server.context, opts, 'environment');
  const svc = await resolve.service(s.api, t.environment, ref);
  const seg = resolve.segment(svc);
  if (seg === 'database') throw new CliError(`${svc.name} is a database: databases have no advanced settings`, EXIT.USAGE);
  const params = { params: { path: { applicationId: svc.id, [`${seg}Id`]: svc.id } } } as never;
  const values = await ok(s.api.GET(`/${seg}/{${seg}Id}/advancedSettings` as '/application/{applicationId}/advancedSettings', params)) as Record<string, unknown>;
  const support = await ok(s.api.GET(`/${seg}/{${seg}Id}/advancedSettings/engineSupport` as '/application/{applicationId}/advancedSettings/engineSupport', params)) as Support;
  const rows = support.results.map((r) => ({ key: r.key, value: values[r.key], applied: r.applied, reason: r.reason }));
  if (opts.json) return printJson({ engine: support.engine, settings: rows });
  printTable(['SETTING', 'VALUE', `APPLIED BY THE ${support.engine.toUpperCase()} ENGINE`],
    rows.map((r) => [r.key, shown(r.value), r.applied ? color.green('yes') : color.dim(`no: ${r.reason}`)]));
}
