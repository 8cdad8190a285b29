// The order of rollouts, pure: Kubernetes' rounding of max surge and max unavailable, the rounds
// of a rolling update and of a recreate, the kubelet's stop timeout after a pre-stop command,
// and whether a container's main process can receive its stop signal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catchesSignal, nextRound, plannedRounds, rollingBounds, signalNumber, stopTimeoutSeconds, type RollingBounds } from './strategy.ts';

const rollingRounds = (desired: number, old: number, bounds: RollingBounds) => plannedRounds('RollingUpdate', desired, old, bounds);

test('surge rounds up, unavailable rounds down, never both 0 (the Deployment controller\'s fenceposts)', () => {
  assert.deepEqual(rollingBounds(1, 25, 25), { surge: 1, unavailable: 0 });
  assert.deepEqual(rollingBounds(4, 25, 25), { surge: 1, unavailable: 1 });
  assert.deepEqual(rollingBounds(10, 25, 25), { surge: 3, unavailable: 2 });
  assert.deepEqual(rollingBounds(3, 0, 0), { surge: 0, unavailable: 1 });
  assert.deepEqual(rollingBounds(3, 0, 50), { surge: 0, unavailable: 1 });
  assert.deepEqual(rollingBounds(2, 100, 0), { surge: 2, unavailable: 0 });
  assert.deepEqual(rollingBounds(1, 0, 100), { surge: 0, unavailable: 1 });
});

test('one replica with the defaults: the new one starts and is ready before the old one stops (no gap)', () => {
  assert.deepEqual(rollingRounds(1, 1, rollingBounds(1, 25, 25)), [{ start: 1, stop: 0 }, { start: 0, stop: 1 }]);
  assert.deepEqual(rollingRounds(1, 0, rollingBounds(1, 25, 25)), [{ start: 1, stop: 0 }], 'a first deployment');
});

test('four replicas at 25 %/25 %: one above and one below four at a time', () => {
  const bounds = rollingBounds(4, 25, 25);
  const rounds = rollingRounds(4, 4, bounds);
  assert.deepEqual(rounds, [{ start: 1, stop: 1 }, { start: 1, stop: 1 }, { start: 1, stop: 1 }, { start: 1, stop: 1 }]);
  let [old, fresh] = [4, 0];
  for (const r of rounds) {
    old -= r.stop;
    assert.ok(old + fresh + r.start <= 4 + bounds.surge, 'never above desired + surge');
    assert.ok(old + fresh >= 4 - bounds.unavailable, 'never fewer than desired - unavailable serving');
    fresh += r.start;
  }
  assert.deepEqual([old, fresh], [0, 4]);
});

test('no surge: old replicas stop first, one at a time; 100 % unavailable: all at once (a gap, like Recreate)', () => {
  assert.deepEqual(rollingRounds(2, 2, rollingBounds(2, 0, 0)), [{ start: 0, stop: 1 }, { start: 1, stop: 0 }, { start: 0, stop: 1 }, { start: 1, stop: 0 }]);
  assert.deepEqual(rollingRounds(2, 2, rollingBounds(2, 0, 100)), [{ start: 0, stop: 2 }, { start: 2, stop: 0 }]);
});

test('scaling down and up within a rollout ends with exactly the desired new replicas and no old one', () => {
  for (const [desired, old, surge, unavailable] of [[1, 4, 25, 25], [4, 1, 25, 25], [5, 3, 0, 40], [3, 5, 100, 0], [7, 7, 10, 10], [2, 0, 0, 0]] as const) {
    const rounds = rollingRounds(desired, old, rollingBounds(desired, surge, unavailable));
    assert.equal(rounds.reduce((n, r) => n + r.start, 0), desired, `${desired}/${old}/${surge}/${unavailable}`);
    assert.equal(rounds.reduce((n, r) => n + r.stop, 0), old);
    assert.ok(rounds.every((r) => r.start > 0 || r.stop > 0));
  }
  assert.deepEqual(nextRound('RollingUpdate', 3, 0, 3, rollingBounds(3, 25, 25)), { start: 0, stop: 0 }, 'complete');
});

test('Recreate: every old replica stops, then the new ones start', () => {
  const bounds = rollingBounds(2, 25, 25);
  assert.deepEqual(plannedRounds('Recreate', 2, 3, bounds), [{ start: 0, stop: 3 }, { start: 2, stop: 0 }]);
  assert.deepEqual(plannedRounds('Recreate', 1, 0, bounds), [{ start: 1, stop: 0 }]);
});

test('the stop timeout after a pre-stop command is what is left of the grace period, 2 s when it used it all', () => {
  assert.equal(stopTimeoutSeconds(60, null), 60);
  assert.equal(stopTimeoutSeconds(60, { ranMs: 10_400, timedOut: false }), 50);
  assert.equal(stopTimeoutSeconds(10, { ranMs: 9_900, timedOut: false }), 1);
  assert.equal(stopTimeoutSeconds(10, { ranMs: 10_000, timedOut: true }), 2);
  assert.equal(stopTimeoutSeconds(0, null), 0);
});

test('a main process without a handler for its stop signal cannot receive it', () => {
  // busybox httpd as PID 1: no handler for SIGTERM (15) nor SIGINT (2)
  const httpd = 'Name:\thttpd\nSigQ:\t0/31402\nSigPnd:\t0000000000000000\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000001000\nSigCgt:\t0000000000010000\n';
  assert.equal(catchesSignal(httpd, signalNumber('SIGTERM')), false);
  // a shell trapping TERM (bit 15) and INT (bit 2)
  const trapping = 'SigCgt:\t0000000000004002\n';
  assert.equal(catchesSignal(trapping, signalNumber('SIGTERM')), true);
  assert.equal(catchesSignal(trapping, signalNumber('INT')), true);
  assert.equal(catchesSignal(trapping, signalNumber('SIGQUIT')), false);
  assert.equal(catchesSignal('nothing here', 15), null);
  assert.equal(signalNumber(undefined), 15);
  assert.equal(signalNumber('9'), 9);
  assert.equal(signalNumber('SIGRTMIN+3'), null);
  assert.equal(catchesSignal(trapping, null), null);
});
