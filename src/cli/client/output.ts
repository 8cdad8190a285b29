// What the client prints: tables (cli-table3), colours (picocolors, off when not a terminal or
// with NO_COLOR), JSON for --json, states coloured by meaning, relative times, service types, and
// words of the command lines given as hints.
import Table from 'cli-table3';
import pc from 'picocolors';

export const color = pc;

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

export function printTable(head: string[], rows: Array<Array<string | number | null | undefined>>): void {
  if (rows.length === 0) {
    process.stdout.write(pc.dim('(none)') + '\n');
    return;
  }
  const table = new Table({
    head: head.map((h) => pc.bold(h)),
    style: { head: [], border: [], compact: true },
    chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' },
  });
  for (const r of rows) table.push(r.map((c) => (c === null || c === undefined ? '' : String(c))));
  process.stdout.write(table.toString().split('\n').map((l) => l.trimEnd()).join('\n') + '\n');
}

const GOOD = new Set(['RUNNING', 'DEPLOYED', 'STOPPED', 'RESTARTED', 'DELETED', 'UP_TO_DATE', 'COMPLETED']);
const BUSY = /(QUEUED|ING)$/;

/** a state or status, coloured: green done, yellow in progress, red error */
export function state(s: string | null | undefined): string {
  if (!s) return pc.dim('-');
  if (/ERROR|FAILED/.test(s)) return pc.red(s);
  if (GOOD.has(s)) return pc.green(s);
  if (BUSY.test(s)) return pc.yellow(s);
  return s;
}

/** a service type as tables show it (AGENTIC_WORKFLOW → agentic workflow) */
export const typeName = (type: string) => type.toLowerCase().replace(/_/g, ' ');

/** a word of a command line, quoted for a POSIX shell when it needs to be */
export const shellWord = (v: string) => (/^[\w.:@/-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);

export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return pc.dim('never');
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

export interface LogLine { id: string; created_at: string; message: string; kind: string }

export function logLine(l: LogLine): string {
  const kind = l.kind === 'RUNTIME' ? pc.cyan('app   ') : l.kind === 'BUILD' ? pc.magenta('build ') : pc.blue('deploy');
  return `${pc.dim(l.created_at.slice(11, 23))} ${kind} ${l.message}`;
}
