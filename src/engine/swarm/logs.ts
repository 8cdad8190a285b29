// A Swarm service's output, followed from the manager (`docker service logs -f --timestamps
// --details`): one stream per service for all its tasks, wherever they run; each line carries
// Docker's time and the task that wrote it. What to do with a line is the caller's (the swarm
// observer records RUNTIME lines and resumes after the last one it recorded per task).
import type Docker from 'dockerode';
import { PassThrough, type Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { microsOf, sinceOf } from '../log-time.ts';

export interface TaskLine { taskId: string; micros: bigint; text: string }

const DETAIL = /^com\.docker\.swarm\.[a-z.]+=/;

/** `<RFC 3339 time> com.docker.swarm.node.id=…,com.docker.swarm.service.id=…,com.docker.swarm.task.id=… <text>` */
export function parseServiceLogLine(line: string): TaskLine | null {
  const space = line.indexOf(' ');
  if (space < 0) return null;
  const micros = microsOf(line.slice(0, space));
  if (micros === null) return null;
  const rest = line.slice(space + 1);
  const end = rest.indexOf(' ');
  const details = end < 0 ? rest : rest.slice(0, end);
  if (!DETAIL.test(details)) return null;
  const taskId = details.split(',').map((kv) => kv.split('=')).find(([k]) => k === 'com.docker.swarm.task.id')?.[1];
  if (!taskId) return null;
  return { taskId, micros, text: end < 0 ? '' : rest.slice(end + 1) };
}

export interface LogFollow { stop(): void; readonly ended: Promise<void> }

/** follows the service's output from `sinceMicros` (null: all of it) until it is removed or `stop()` */
export async function followServiceLogs(docker: Docker, swarmServiceId: string, sinceMicros: bigint | null,
  onLine: (line: TaskLine) => Promise<void>): Promise<LogFollow> {
  const stream = await docker.getService(swarmServiceId).logs({
    follow: true, stdout: true, stderr: true, timestamps: true, details: true, ...(sinceMicros !== null ? { since: sinceOf(sinceMicros) } : {}),
  } as never) as unknown as Readable;
  const out = new PassThrough();
  docker.modem.demuxStream(stream, out, out);
  stream.on('end', () => out.end());
  stream.on('error', () => out.end());
  const lines = createInterface({ input: out, crlfDelay: Infinity });
  const ended = (async () => {
    for await (const raw of lines) {
      const line = parseServiceLogLine(raw);
      if (line) await onLine(line).catch(() => {});
    }
  })();
  return { stop: () => { stream.destroy(); out.end(); }, ended };
}
