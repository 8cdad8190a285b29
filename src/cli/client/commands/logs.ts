// berth logs <service> [-f] [--tail N]: the last lines of a service (build, deploy and runtime),
// and with -f the live stream after them until Ctrl-C (reconnecting without gaps or repeats).
import { ok } from '../api.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { logLine, type LogLine } from '../output.ts';
import * as resolve from '../resolve.ts';
import { openSession } from '../session.ts';
import { follow } from '../stream.ts';
import type { TargetOptions } from './services.ts';

export async function logs(ref: string, opts: TargetOptions & { follow?: boolean; tail?: string }): Promise<void> {
  const tail = opts.tail === undefined ? 100 : Number(opts.tail);
  if (!Number.isInteger(tail) || tail < 0 || tail > 10_000) throw new CliError('--tail must be an integer between 0 and 10000', EXIT.USAGE);
  const s = openSession(opts);
  const t = await resolve.target(s.api, s.server.context, opts, 'environment');
  const svc = await resolve.service(s.api, t.environment, ref);
  const seg = resolve.segment(svc);
  // --json: one JSON object per line (the API's LogLine), so it can be piped
  const print = (l: LogLine) => process.stdout.write((opts.json ? JSON.stringify(l) : logLine(l)) + '\n');
  if (!opts.follow) {
    if (tail === 0) return;
    const path = `/${seg}/{${seg}Id}/log` as '/application/{applicationId}/log';
    const page = await ok(s.api.GET(path, { params: { path: { applicationId: svc.id, [`${seg}Id`]: svc.id }, query: { tail } } } as never)) as { results: LogLine[] };
    for (const l of page.results) print(l);
    return;
  }
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  for await (const e of follow(s.conn, `/${seg}/${svc.id}/log/stream?tail=${tail}`, { reconnect: true, signal: abort.signal })) {
    if (e.event === 'log') print(e.data);
  }
}
