// Watching the daemon: container events of berth's replicas (a death berth did not cause makes
// the service ERROR), and their output followed as RUNTIME log lines. Docker-side only: what to
// do with an event is the caller's (src/workers/engine-observer.ts), which owns the database.
import type Docker from 'dockerode';
import { PassThrough, type Readable } from 'node:stream';
import { labelFilter } from './naming.ts';

export interface ContainerEvent {
  action: 'die' | 'start' | 'oom';
  containerId: string;
  serviceId: string;
  generation: string | null;
  role: string;
  exitCode: number | null;
}

export interface ObserverHandlers {
  event(e: ContainerEvent): Promise<void>;
  /** one output line of a replica; `at` is Docker's RFC 3339 timestamp (nanoseconds) */
  line(serviceId: string, containerId: string, at: string, text: string): Promise<void>;
  /** where to resume a replica's output (an RFC 3339 time, or null: from now) */
  resumeFrom(serviceId: string): Promise<string | null>;
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
   * now" would lose them. A replica re-adopted after berth restarted resumes after the service's
   * last recorded line.
   */
  async function follow(containerId: string, serviceId: string, fresh: boolean): Promise<void> {
    if (stopped) return;
    if (following.has(containerId)) {
      if (fresh) startedAgain.add(containerId); // followed once the previous run's stream ends
      return;
    }
    following.set(containerId, new PassThrough()); // claimed while the stream is being opened
    let stream: Readable;
    /** lines at or before this instant (ms; 0: none) are not this run's or are recorded already */
    let floorMs: number;
    try {
      const container = docker.getContainer(containerId);
      const resume = fresh ? null : await handlers.resumeFrom(serviceId);
      // Docker's never-ended run is year 1 (negative); an unparsable time counts as none
      floorMs = Math.max(0, Date.parse((await container.inspect()).State.FinishedAt) || 0, (resume && Date.parse(resume)) || 0);
      stream = await container.logs({
        follow: true, stdout: true, stderr: true, timestamps: true, since: Math.floor(floorMs / 1000),
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
    out.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const raw of lines) {
        const space = raw.indexOf(' ');
        const at = space > 0 ? raw.slice(0, space) : new Date().toISOString();
        const text = space > 0 ? raw.slice(space + 1) : raw;
        // Docker's `since` has second precision: skip what was already recorded
        if (Date.parse(at) <= floorMs) continue;
        chain = chain.then(() => handlers.line(serviceId, containerId, at, text)).catch(onError);
      }
    });
    docker.modem.demuxStream(stream, out, out);
    const done = () => {
      following.delete(containerId);
      if (startedAgain.delete(containerId)) follow(containerId, serviceId, true).catch(onError);
    };
    stream.on('end', done);
    stream.on('error', done);
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
                action: raw.Action as ContainerEvent['action'], containerId: raw.id, serviceId: a['berth.service_id'],
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
