// Liveness probes, run by berth from outside the container like readiness: each running replica
// created with a liveness probe is probed at its period (after its initial delay); after
// failure_threshold failures in a row it is restarted, as a kubelet would.
import type Docker from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import { probeOnce } from './health.ts';
import { parseProbe } from './naming.ts';
import { probeTarget, publishedPorts } from './replicas.ts';

export interface LivenessChecker {
  /** probes the replicas whose period has come; calls onRestart after restarting one */
  check(replicas: ContainerInfo[], onRestart: (replica: ContainerInfo, detail: string) => Promise<void>): Promise<void>;
}

export function livenessChecker(docker: Docker): LivenessChecker {
  const seen = new Map<string, { failures: number; lastAt: number }>();
  return {
    async check(replicas, onRestart) {
      const now = Date.now();
      const live = new Set<string>();
      for (const c of replicas) {
        const probe = parseProbe(c.Labels['berth.liveness']);
        if (!probe || c.State !== 'running') continue;
        live.add(c.Id);
        const entry = seen.get(c.Id) ?? { failures: 0, lastAt: 0 };
        seen.set(c.Id, entry);
        if (now - c.Created * 1000 < probe.initialDelaySeconds * 1000) continue;
        if (now - entry.lastAt < probe.periodSeconds * 1000) continue;
        entry.lastAt = now;
        const result = await probeOnce(probe, probeTarget(docker, c.Id, publishedPorts(c)));
        entry.failures = result.ok ? 0 : entry.failures + 1;
        if (entry.failures >= Math.max(1, probe.failureThreshold)) {
          entry.failures = 0;
          await docker.getContainer(c.Id).restart({ t: 10 });
          await onRestart(c, `liveness probe failed ${probe.failureThreshold} time(s) in a row (${result.detail}): replica restarted`);
        }
      }
      for (const id of seen.keys()) if (!live.has(id)) seen.delete(id);
    },
  };
}
