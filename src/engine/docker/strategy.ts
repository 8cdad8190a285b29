// The order of a rollout, pure (decision 0336). RollingUpdate follows the Kubernetes Deployment
// controller: max surge and max unavailable are percentages of the desired replica count, surge
// rounded up and unavailable rounded down, and when both come out 0 one replica may be
// unavailable (the controller's own fencepost). Each round starts as many new replicas as the
// surge allows and stops as many old ones as availability allows (new replicas count as
// available once ready); the driver waits for the round's new replicas before the next round.
// Recreate stops every old replica, then starts the new ones. The stop timeout after a pre-stop
// command follows the kubelet: what is left of the grace period, or 2 s when the command used it up.

export interface RollingBounds { surge: number; unavailable: number }

export function rollingBounds(desired: number, surgePercent: number, unavailablePercent: number): RollingBounds {
  const surge = Math.ceil((desired * surgePercent) / 100);
  const unavailable = Math.floor((desired * unavailablePercent) / 100);
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable };
}

export interface Round { start: number; stop: number }

/**
 * The next round from what runs: `oldLeft` replicas of the previous version (all serving) and
 * `newReady` of the new one (ready). `{ start: 0, stop: 0 }` once the rollout is complete.
 */
export function nextRound(strategy: 'RollingUpdate' | 'Recreate', desired: number, oldLeft: number, newReady: number, bounds: RollingBounds): Round {
  if (strategy === 'Recreate') return oldLeft > 0 ? { start: 0, stop: oldLeft } : { start: desired - newReady, stop: 0 };
  const start = Math.max(0, Math.min(desired - newReady, desired + bounds.surge - (oldLeft + newReady)));
  const stop = Math.max(0, Math.min(oldLeft, oldLeft + newReady - (desired - bounds.unavailable)));
  return { start, stop };
}

/** every round from `old` serving replicas to `desired` new ones */
export function plannedRounds(strategy: 'RollingUpdate' | 'Recreate', desired: number, old: number, bounds: RollingBounds): Round[] {
  const rounds: Round[] = [];
  let [oldLeft, newReady] = [old, 0];
  for (;;) {
    const round = nextRound(strategy, desired, oldLeft, newReady, bounds);
    if (round.start === 0 && round.stop === 0) return rounds;
    rounds.push(round);
    oldLeft -= round.stop;
    newReady += round.start;
  }
}

/**
 * docker stop's timeout once the pre-stop command is over: the rest of the grace period (at
 * least 1 s), or the kubelet's one-off 2 s when the command ran until the grace period ended.
 * Without a pre-stop command the whole grace period.
 */
export function stopTimeoutSeconds(graceSeconds: number, preStop: { ranMs: number; timedOut: boolean } | null): number {
  if (!preStop || graceSeconds === 0) return graceSeconds;
  if (preStop.timedOut) return 2;
  return Math.max(1, Math.ceil(graceSeconds - preStop.ranMs / 1000));
}

const SIGNALS: Record<string, number> = {
  SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGUSR1: 10, SIGUSR2: 12, SIGTERM: 15, SIGCONT: 18, SIGSTOP: 19, SIGWINCH: 28, SIGPWR: 30,
};

/** a stop signal's number (`SIGTERM`, `TERM`, `15`), null when unknown */
export function signalNumber(signal: string | null | undefined): number | null {
  const s = (signal || 'SIGTERM').trim().toUpperCase();
  if (/^\d+$/.test(s)) return Number(s);
  return SIGNALS[s.startsWith('SIG') ? s : `SIG${s}`] ?? null;
}

/**
 * Whether a container's main process can receive its stop signal, from its /proc/1/status: the
 * init process of a PID namespace gets only the signals it has a handler for (SigCgt), so
 * without one the stop signal is dropped and the stop can only end in SIGKILL. null when the
 * status or the signal is not understood.
 */
export function catchesSignal(procStatus: string, signal: number | null): boolean | null {
  const caught = /^SigCgt:\s*([0-9a-f]+)\s*$/im.exec(procStatus);
  if (!caught || signal === null || signal < 1 || signal > 64) return null;
  return (BigInt(`0x${caught[1]}`) >> BigInt(signal - 1)) & 1n ? true : false;
}
