// Watching the daemon: container events of berth's replicas (a death berth did not cause makes
// the service ERROR), and their output followed as RUNTIME log lines. Docker-side only: what to
// do with an event is the caller's (src/workers/engine-observer.ts), which owns the database.
import type Docker from 'dockerode';
import { PassThrough, type Readable } from 'node:stream';
import { microsOf, sinceOf } from '../log-time.ts';
import { labelFilter } from './naming.ts';

interface ContainerEvent {
  action: 'die' | 'start' | 'oom';
  containerId: string;
  /** the container's name (without Docker's leading slash) */
  name: string;
  serviceId: string;
  generation: string | null;
  role: string;
  exitCode: number | null;
}

/**
 * Where a replica's output resumes: lines stamped before `micros` are recorded already (or not
 * this run's), and so are the first `recorded` lines stamped exactly `micros` (Infinity: all).
 */
export interface ResumePoint { micros: bigint; recorded: number }

export interface ObserverHandlers {
  event(e: ContainerEvent): Promise<void>;
  /** one output line of a replica, stamped by Docker (microseconds since the epoch, truncated: log-time.ts) */
  line(serviceId: string, containerId: string, micros: bigint, text: string): Promise<void>;
  /** where to resume a replica berth re-adopts: after its own last recorded line; null: its whole output */
  resumeFrom(containerId: string, serviceId: string): Promise<ResumePoint | null>;
}

export interface DockerObserver {
  /** follow the output of every running replica not followed yet */
  followRunning(): Promise<void>;
  stop(): void;
}

export function observeDocker(docker: Docker, handlers: ObserverHandlers, onError: (err: unknown) => void): DockerObserver {
  let stopped = false;
  let events: Readable | null = null;
  const following = new Map<string, Readable>();
  /** containers started again while their previous run's stream had not ended yet */
  const startedAgain = new Set<string>();

  /**
   * Follows a replica's output from where nothing of it is recorded yet. A container that just
   * started (`fresh`) is read from the end of its previous run (its whole output when it never ran
   * before): its first lines are often written before Docker's start event reaches berth, so "from
   * now" would lose them. A replica re-adopted after berth restarted resumes after its own last
   * recorded line, to the line: lines are recorded one at a time in the order Docker gives them,
   * so what is recorded of a container is always a prefix of its output. A line that cannot be
   * recorded ends the following (the lines after it are not recorded either), and the next round
   * of followRunning resumes after what was.
   */
  async function follow(containerId: string, serviceId: string, fresh: boolean): Promise<void> {
    if (stopped) return;
    if (following.has(containerId)) {
      if (fresh) startedAgain.add(containerId); // followed once the previous run's stream ends
      return;
    }
    following.set(containerId, new PassThrough()); // claimed while the stream is being opened
    let stream: Readable;
    let floor: ResumePoint | null;
    try {
      const container = docker.getContainer(containerId);
      if (fresh) {
        // Docker's never-ended run is year 1 (negative): nothing to skip
        const ended = microsOf((await container.inspect()).State.FinishedAt);
        floor = ended !== null && ended > 0n ? { micros: ended, recorded: Infinity } : null;
      } else {
        floor = await handlers.resumeFrom(containerId, serviceId);
      }
      stream = await container.logs({
        follow: true, stdout: true, stderr: true, timestamps: true, ...(floor ? { since: sinceOf(floor.micros) } : {}),
      }) as unknown as Readable;
    } catch (err) {
      following.delete(containerId);
      throw err;
    }
    if (stopped) { stream.destroy(); return; }
    following.set(containerId, stream);
    const out = new PassThrough();
    let pending = '';
    let chain: Promise<void> = Promise.resolve();
    let failed = false;
    /** lines stamped exactly floor.micros seen so far (the first floor.recorded of them are recorded) */
    let atFloor = 0;
    out.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const raw of lines) {
        if (failed) return;
        const space = raw.indexOf(' ');
        const micros = (space > 0 ? microsOf(raw.slice(0, space)) : null) ?? BigInt(Date.now()) * 1000n;
        const text = space > 0 ? raw.slice(space + 1) : raw;
        // Docker's `since` keeps lines stamped at or after it: skip what is recorded already
        if (floor && (micros < floor.micros || (micros === floor.micros && atFloor++ < floor.recorded))) continue;
        chain = chain.then(async () => {
          if (failed) return;
          try {
            await handlers.line(serviceId, containerId, micros, text);
          } catch (err) {
            failed = true;
            stream.destroy();
            onError(err);
          }
        });
      }
    });
    docker.modem.demuxStream(stream, out, out);
    const endOut = () => { if (!out.writableEnded) out.end(); };
    stream.on('end', endOut);
    stream.on('error', endOut);
    stream.on('close', endOut);
    // the container counts as followed until every line read is recorded, so that a new stream
    // for it never starts from a resume point that lines still on their way would move
    out.on('end', () => {
      void chain.then(() => {
        if (following.get(containerId) === stream) following.delete(containerId);
        if (startedAgain.delete(containerId)) follow(containerId, serviceId, true).catch(onError);
      });
    });
  }

  async function watchEvents(): Promise<void> {
    while (!stopped) {
      try {
        events = await docker.getEvents({ filters: { type: ['container'], event: ['die', 'start', 'oom'], ...labelFilter() } }) as unknown as Readable;
        let buffer = '';
        await new Promise<void>((resolve) => {
          events!.on('data', (chunk: Buffer) => {
            buffer += chunk.toString('utf8');
            let nl: number;
            while ((nl = buffer.indexOf('\n')) >= 0) {
              const text = buffer.slice(0, nl).trim();
              buffer = buffer.slice(nl + 1);
              if (!text) continue;
              const raw = JSON.parse(text) as { Action: string; id: string; Actor: { Attributes: Record<string, string> } };
              const a = raw.Actor.Attributes;
              if (!a['berth.service_id']) continue;
              const e: ContainerEvent = {
                action: raw.Action as ContainerEvent['action'], containerId: raw.id, name: a.name ?? '', serviceId: a['berth.service_id'],
                generation: a['berth.generation'] ?? null, role: a['berth.role'] ?? '', exitCode: a.exitCode !== undefined ? Number(a.exitCode) : null,
              };
              if (e.action === 'start' && e.role === 'replica') follow(e.containerId, e.serviceId, true).catch(onError);
              handlers.event(e).catch(onError);
            }
          });
          events!.on('end', () => resolve());
          events!.on('error', () => resolve());
        });
      } catch (err) {
        onError(err);
      }
      if (!stopped) await new Promise((r) => setTimeout(r, 1000));
    }
  }
  void watchEvents();

  return {
    async followRunning() {
      const running = await docker.listContainers({ filters: labelFilter({ 'berth.role': 'replica' }) });
      for (const c of running) await follow(c.Id, c.Labels['berth.service_id']!, false).catch(onError);
    },
    stop() {
      stopped = true;
      events?.destroy();
      for (const s of following.values()) s.destroy();
      following.clear();
    },
  };
}
