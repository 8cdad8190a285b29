// berth db backup | backups | restore <database> (issue 39): take a backup now (--wait: until it
// is SUCCEEDED or FAILED), list a database's backups (status, trigger, size, checksum, where kept,
// when a drill last restored it, the error), and restore one into a new database beside it (the
// default) or in place (--in-place, which asks for --yes: the database's contents are replaced,
// after a SAFETY backup). A backup is named by its id, its first characters, or its name when only
// one has it. Backups have no stream: --wait polls every second. Also the facts `berth status`
// shows of each database (backupAlerts).
import { ok, type Api, type paths } from '../api.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { ago, color, printJson, printTable, shellWord, state } from '../output.ts';
import * as resolve from '../resolve.ts';
import { openSession, type GlobalOptions } from '../session.ts';

// (not services.ts' TargetOptions: services.ts imports this file for `berth status`)
type TargetOptions = GlobalOptions & resolve.TargetFlags;

type Backup = paths['/database/{databaseId}/backup/{backupId}']['get']['responses'][200]['content']['application/json'];
type Restore = paths['/database/{databaseId}/backup/{backupId}/restore']['post']['responses'][202]['content']['application/json'];
type Policy = paths['/database/{databaseId}/backupPolicy']['get']['responses'][200]['content']['application/json'];

export interface BackupOptions extends TargetOptions { name?: string; message?: string; wait?: boolean }
export interface RestoreOptions extends TargetOptions { inPlace?: boolean; yes?: boolean; name?: string; wait?: boolean }

const POLL_MS = 1000;
const settled = (s: string) => s === 'SUCCEEDED' || s === 'FAILED';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** the database the words name */
async function databaseOf(ref: string, opts: TargetOptions) {
  const s = openSession(opts);
  const t = await resolve.target(s.api, s.server.context, opts, 'environment');
  const svc = await resolve.service(s.api, t.environment, ref);
  const seg = resolve.segment(svc);
  if (seg !== 'database') throw new CliError(`${svc.name} is ${/^[aeiou]/.test(seg) ? 'an' : 'a'} ${seg}: only databases have backups`, EXIT.USAGE);
  return { api: s.api, db: svc };
}

const list = async (api: Api, databaseId: string): Promise<Backup[]> =>
  (await ok(api.GET('/database/{databaseId}/backup', { params: { path: { databaseId } } }))).results;

/** bytes as people read them */
function size(bytes: number | null): string {
  if (bytes === null) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return i === 0 ? `${v} B` : `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

const status = (s: string) => (s === 'SUCCEEDED' ? color.green(s) : state(s));

export async function backup(ref: string, opts: BackupOptions): Promise<void> {
  const { api, db } = await databaseOf(ref, opts);
  const name = opts.name ?? `manual-${new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}`;
  let b: Backup = await ok(api.POST('/database/{databaseId}/backup', {
    params: { path: { databaseId: db.id } }, body: { name, ...(opts.message !== undefined ? { message: opts.message } : {}) },
  }));
  if (!opts.wait) {
    if (opts.json) return printJson(b);
    process.stdout.write(`${db.name}: backup ${b.name} queued (${b.id})\n`);
    process.stderr.write(color.dim(`see it with: berth db backups ${shellWord(db.name)}, or pass --wait\n`));
    return;
  }
  if (!opts.json) process.stdout.write(`${color.bold(db.name)}: backing up as ${b.name} ${color.dim(`(${b.id})`)}\n`);
  while (!settled(b.status)) {
    await sleep(POLL_MS);
    b = await ok(api.GET('/database/{databaseId}/backup/{backupId}', { params: { path: { databaseId: db.id, backupId: b.id } } }));
  }
  if (opts.json) printJson(b);
  else if (b.status === 'SUCCEEDED') process.stdout.write(`${color.green('✔')} SUCCEEDED: ${size(b.size)}, sha256 ${b.checksum}, kept at ${b.storage}\n`);
  if (b.status === 'FAILED') throw new CliError(`${db.name}: backup ${b.name} FAILED — ${b.error ?? 'no reason given'}`, EXIT.BACKUP_FAILED);
}

export async function backups(ref: string, opts: TargetOptions): Promise<void> {
  const { api, db } = await databaseOf(ref, opts);
  const all = await list(api, db.id);
  if (opts.json) return printJson(all);
  printTable(['ID', 'NAME', 'STATUS', 'TRIGGER', 'CREATED', 'SIZE', 'CHECKSUM', 'STORAGE', 'VERIFIED', 'ERROR'], all.map((b) => [
    b.id.slice(0, 8), b.name, status(b.status), b.trigger.toLowerCase(), ago(b.created_at), size(b.size), b.checksum ? b.checksum.slice(0, 12) : color.dim('-'),
    b.storage, b.drill?.error ? color.red(`drill failed: ${b.drill.error}`) : b.verified_at ? ago(b.verified_at) : color.dim('no'), b.error ?? '',
  ]));
}

/** a backup by its id, the start of one, or a name only one backup has */
function pick(all: Backup[], ref: string, dbName: string): Backup {
  const low = ref.toLowerCase();
  const byId = all.filter((b) => b.id === low || (low.length >= 4 && b.id.startsWith(low)));
  if (byId.length === 1) return byId[0]!;
  if (byId.length > 1) throw new CliError(`"${ref}" starts ${byId.length} backups of ${dbName}: give more of the id`, EXIT.USAGE);
  const byName = all.filter((b) => b.name === ref);
  if (byName.length === 1) return byName[0]!;
  if (byName.length > 1) throw new CliError(`${byName.length} backups of ${dbName} are named "${ref}": give the id (berth db backups ${shellWord(dbName)})`, EXIT.USAGE);
  throw new CliError(`no backup "${ref}" among the newest backups of ${dbName} (see berth db backups ${shellWord(dbName)})`, EXIT.NOT_FOUND);
}

export async function restore(ref: string, backupRef: string, opts: RestoreOptions): Promise<void> {
  if (opts.inPlace && opts.name) throw new CliError('--name is for a restore into a new database; --in-place keeps the database', EXIT.USAGE);
  const { api, db } = await databaseOf(ref, opts);
  if (opts.inPlace && !opts.yes) {
    throw new CliError(`--in-place replaces what ${db.name} holds now (after a safety backup of it): add --yes to go ahead`, EXIT.USAGE);
  }
  const b = pick(await list(api, db.id), backupRef, db.name);
  const path = { databaseId: db.id, backupId: b.id };
  const body = opts.inPlace ? { mode: 'IN_PLACE' as const } : { mode: 'NEW_DATABASE' as const, ...(opts.name ? { name: opts.name } : {}) };
  let r: Restore = await ok(api.POST('/database/{databaseId}/backup/{backupId}/restore', { params: { path }, body }));
  const into = async () => (r.mode === 'IN_PLACE' || !r.target_database_id ? db.name
    : (await ok(api.GET('/database/{databaseId}', { params: { path: { databaseId: r.target_database_id } } }))).name);
  const target = await into();
  if (!opts.wait) {
    if (opts.json) return printJson(r);
    process.stdout.write(`${db.name}: restore of ${b.name} ${r.mode === 'IN_PLACE' ? 'in place' : `into the new database ${target}`} queued (${r.id})\n`);
    return;
  }
  if (!opts.json) process.stdout.write(`${color.bold(db.name)}: restoring ${b.name} ${r.mode === 'IN_PLACE' ? 'in place (a safety backup first)' : `into the new database ${target}`} ${color.dim(`(${r.id})`)}\n`);
  while (!settled(r.status)) {
    await sleep(POLL_MS);
    const all = (await ok(api.GET('/database/{databaseId}/backup/{backupId}/restore', { params: { path } }))).results;
    r = all.find((x) => x.id === r.id) ?? r;
  }
  if (opts.json) printJson(r);
  else if (r.status === 'SUCCEEDED') process.stdout.write(`${color.green('✔')} SUCCEEDED: ${target} holds ${b.name}\n`);
  if (r.status === 'FAILED') throw new CliError(`${db.name}: restore of ${b.name} FAILED — ${r.error ?? 'no reason given'}`, EXIT.BACKUP_FAILED);
}

export interface BackupAlert {
  database: string; database_id: string;
  /** the incident kinds of berth's notifications */
  kind: 'BACKUP_FAILED' | 'BACKUP_DRILL_FAILED' | 'BACKUP_OVERDUE';
  since: string; message: string;
}

/** per database: whether its latest backup failed, its last drill failed or its policy is overdue (two list calls each) */
export async function backupAlerts(api: Api, databases: Array<{ id: string; name: string }>): Promise<BackupAlert[]> {
  const per = await Promise.all(databases.map(async (d) => {
    const [all, policy] = await Promise.all([
      list(api, d.id).catch(() => [] as Backup[]),
      // no policy is a 404: nothing to be overdue
      api.GET('/database/{databaseId}/backupPolicy', { params: { path: { databaseId: d.id } } }).then((r) => (r.response.ok ? r.data as Policy : null), () => null),
    ]);
    const out: BackupAlert[] = [];
    const say = (kind: BackupAlert['kind'], since: string, message: string) => out.push({ database: d.name, database_id: d.id, kind, since, message });
    const latest = all.find((b) => settled(b.status));
    if (latest?.status === 'FAILED') say('BACKUP_FAILED', latest.finished_at ?? latest.created_at, `latest backup ${latest.name} FAILED: ${latest.error ?? 'no reason given'}`);
    const drilled = all.filter((b) => b.drill).sort((a, b) => (b.verified_at ?? b.updated_at).localeCompare(a.verified_at ?? a.updated_at))[0];
    if (drilled?.drill?.error) say('BACKUP_DRILL_FAILED', drilled.updated_at, `last restore drill (of ${drilled.name}) failed: ${drilled.drill.error}`);
    if (policy?.overdue_since) say('BACKUP_OVERDUE', policy.overdue_since, `no backup succeeded within 1.5 × the schedule (${policy.schedule})`);
    return out;
  }));
  return per.flat();
}

/** the lines `berth status` prints under its tables */
export function printBackupAlerts(alerts: BackupAlert[]): void {
  for (const a of alerts) process.stdout.write(`${color.red('backups')} ${color.bold(a.database)}: ${a.message} ${color.dim(`(${ago(a.since)})`)}\n`);
}
