// A compose healthcheck as berth's readiness probe: curl/wget of a local URL → HTTP, nc -z → TCP,
// anything else → exec; interval, timeout, retries and start_period carried over, the rest noted.
import type { PortOut, ProbeOut } from './model.ts';
import { GENERIC_WHY, isMap, note, text, type Context } from './untranslated.ts';
import { durationSeconds, splitWords } from './values.ts';

/** a healthcheck's test as berth's probe: curl/wget of a local URL → HTTP, nc -z → TCP, anything else → exec */
export function healthcheck(ctx: Context, svc: string, value: unknown, portsOut: PortOut[]): ProbeOut | null {
  const key = `services.${svc}.healthcheck`;
  if (!isMap(value)) { note(ctx, key, 'not a map'); return null; }
  if (value.disable === true) return null;
  let words: string[];
  if (Array.isArray(value.test)) {
    const [mode, ...rest] = value.test.map(String);
    if (mode === 'NONE') return null;
    words = mode === 'CMD-SHELL' ? ['/bin/sh', '-c', rest.join(' ')] : mode === 'CMD' ? rest : [mode!, ...rest];
  } else if (typeof value.test === 'string') {
    words = ['/bin/sh', '-c', value.test];
  } else {
    note(ctx, `${key}.test`, 'missing: the image\'s own HEALTHCHECK is not read; berth probes the first port over TCP');
    return null;
  }
  const shell = words[0] === '/bin/sh' && words[1] === '-c' ? words[2]! : null;
  const line = shell ?? words.join(' ');
  const url = /(?:^|\s)(?:curl|wget)\s[^|;&]*?(https?):\/\/(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(?::(\d+))?(\/[^\s'"|;&]*)?/.exec(line);
  const nc = /(?:^|\s)nc\s+(?:-\w+\s+)*(?:localhost|127\.0\.0\.1)\s+(\d+)/.exec(line);
  const type: ProbeOut['type'] = url && url[1] === 'http' ? { http: { path: url[3] ?? '/', port: url[2] ? Number(url[2]) : 80, scheme: 'HTTP' } }
    : nc ? { tcp: { port: Number(nc[1]) } }
    : { exec: { command: words } };
  if (type.http && !portsOut.some((p) => p.internal_port === type.http!.port)) {
    portsOut.push({ internal_port: type.http.port, publicly_accessible: false, protocol: 'HTTP' });
  }
  const probe: ProbeOut = { type };
  const interval = durationSeconds(value.interval);
  const timeout = durationSeconds(value.timeout);
  const start = durationSeconds(value.start_period);
  if (interval) probe.period_seconds = interval;
  if (timeout) probe.timeout_seconds = timeout;
  if (start !== null && value.start_period !== undefined) probe.initial_delay_seconds = start;
  if (typeof value.retries === 'number' && value.retries >= 1) probe.failure_threshold = value.retries;
  for (const k of Object.keys(value)) {
    if (k === 'start_interval') note(ctx, `${key}.${k}`, 'berth probes at one period; it polls faster on its own while a service starts');
    else if (!['test', 'interval', 'timeout', 'start_period', 'retries', 'disable'].includes(k)) note(ctx, `${key}.${k}`, GENERIC_WHY);
  }
  return probe;
}
