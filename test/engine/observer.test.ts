// The daemon observer's log following against a real container: a replica's first lines, written
// before Docker's start event reaches berth, are recorded even when the database is slow to
// answer; a container started again records its new run only; a replica re-adopted by another
// observer (berth restarted) resumes exactly after the lines recorded, wherever they end — also
// inside a burst of lines that share a microsecond — and records nothing twice.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { busyboxImage, NO_DOCKER, TEST_LABEL, testDocker } from '../support/docker.ts';
import { eventually } from '../support/harness.ts';
import { observeDocker, type DockerObserver, type ResumePoint } from '../../src/engine/docker/observer.ts';
import { MANAGED_LABEL } from '../../src/engine/docker/naming.ts';

const found = await testDocker();

describe('docker observer: replica output as RUNTIME lines', { skip: found ? false : NO_DOCKER, timeout: 120_000 }, () => {
  const docker = found?.docker!;
  const serviceId = randomUUID();
  type Line = { micros: bigint; text: string };
  const lines: Line[] = [];
  const observers: DockerObserver[] = [];
  let containerId = '';

  const observe = (resumeFrom: () => Promise<ResumePoint | null>, into: Line[] = lines) => {
    const o = observeDocker(docker, {
      event: async () => {},
      // replicas other tests left running are followed too: only this test's container counts
      line: async (_service, container, micros, text) => { if (container === containerId) into.push({ micros, text }); },
      resumeFrom: async (container) => (container === containerId ? resumeFrom() : null),
    }, (err) => { throw err; });
    observers.push(o);
    return o;
  };
  const texts = () => lines.map((l) => l.text);

  before(async () => {
    const image = await busyboxImage(docker);
    // the event stream is open before the container starts
    const observer = observe(async () => { await new Promise((r) => setTimeout(r, 1500)); return null; });
    await new Promise((r) => setTimeout(r, 1000));
    const container = await docker.createContainer({
      Image: image, Cmd: ['sh', '-c', 'echo first line of the run; exec sleep 300'],
      Labels: { [MANAGED_LABEL]: 'true', [TEST_LABEL]: 'true', 'berth.service_id': serviceId, 'berth.role': 'replica' },
      HostConfig: { Memory: 32 * 1024 * 1024, NanoCpus: 250_000_000 },
    });
    containerId = container.id;
    await container.start();
    // what berth's worker also does on its rounds, should the start event have come before the
    // event stream was open: either way the replica is read from its start
    await observer.followRunning();
  });
  after(async () => {
    for (const o of observers) o.stop();
    if (containerId) await docker.getContainer(containerId).remove({ force: true }).catch(() => {});
  });

  test('the first line of a replica is recorded although the database answers after it was written', async () => {
    await eventually(async () => texts().includes('first line of the run'), 15_000);
  });

  test('a container started again records its new run, not the previous one again', async () => {
    await docker.getContainer(containerId).restart({ t: 0 });
    await eventually(async () => texts().filter((t) => t === 'first line of the run').length === 2, 15_000);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(texts().filter((t) => t === 'first line of the run').length, 2);
  });

  /** where a re-adopting observer resumes when the first `n` lines are recorded, as the database says it */
  const pointAfter = (n: number): ResumePoint => {
    const last = lines[n - 1]!.micros;
    return { micros: last, recorded: lines.slice(0, n).filter((l) => l.micros === last).length };
  };
  const settled = async (of: Line[]) => {
    let seen = -1;
    await eventually(async () => { const same = of.length === seen; seen = of.length; return same; }, 15_000, 500);
  };

  test('a replica re-adopted by a new observer resumes exactly after the lines recorded, wherever they end', async () => {
    await docker.getContainer(containerId).exec({ Cmd: ['sh', '-c', 'seq 1 400 | sed "s/^/burst /" > /proc/1/fd/1'] })
      .then((e) => e.start({ Detach: true }));
    await eventually(async () => texts().includes('burst 400'), 15_000);
    await settled(lines);
    observers.shift()!.stop();
    // cut points: after the first line, in the middle of the burst, inside a group of lines that
    // share a microsecond (when Docker stamped some so), and after the very last line
    const shared = lines.findIndex((l, i) => i > 0 && i < lines.length - 1 && l.micros === lines[i + 1]!.micros);
    const cuts = [1, lines.length - 200, ...(shared > 0 ? [shared + 1] : []), lines.length];
    for (const n of cuts) {
      const resumed: Line[] = [];
      const o = observe(async () => pointAfter(n), resumed);
      await o.followRunning();
      if (n < lines.length) await eventually(async () => resumed.length >= lines.length - n, 15_000);
      await settled(resumed);
      o.stop();
      assert.deepEqual(resumed.map((l) => l.text), texts().slice(n), `resumed after ${n} of ${lines.length} lines`);
    }
  });

  test('a re-adopting observer records what is written afterwards, once', async () => {
    const before = lines.length;
    const readopting = observe(async () => pointAfter(lines.length));
    await readopting.followRunning();
    await docker.getContainer(containerId).exec({ Cmd: ['sh', '-c', 'echo written after the re-adoption > /proc/1/fd/1'] })
      .then((e) => e.start({ Detach: true }));
    await eventually(async () => texts().includes('written after the re-adoption'), 15_000);
    await settled(lines);
    assert.deepEqual(texts().slice(before), ['written after the re-adoption']);
  });
});
