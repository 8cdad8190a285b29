// Where a re-adopted replica's output resumes, against a stand-in for the daemon that stamps
// lines as it likes (the real daemon rarely stamps two lines in one microsecond; see
// test/engine/observer.test.ts for the same against it): after any prefix of the output, also
// one ending inside a group of lines that share a microsecond, exactly the rest is recorded; a
// line that cannot be recorded ends the following, and the next one resumes at that line.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Docker from 'dockerode';
import { PassThrough } from 'node:stream';
import { isoOfMicros, microsOf, sinceOf } from '../log-time.ts';
import { observeDocker, type ObserverHandlers, type ResumePoint } from './observer.ts';

// b, c and d share a microsecond; the daemon stamps nanoseconds
const OUTPUT = [
  '2026-11-26T10:00:00.000001000Z a',
  '2026-11-26T10:00:00.000002100Z b',
  '2026-11-26T10:00:00.000002500Z c',
  '2026-11-26T10:00:00.000002900Z d',
  '2026-11-26T10:00:01.000000000Z e',
];
const TEXTS = OUTPUT.map((l) => l.split(' ')[1]!);

/** a daemon with one running replica whose log is OUTPUT, keeping the lines not before `since` (as dockerd does) */
function daemon(): { docker: Docker; sinces: Array<string | undefined> } {
  const sinces: Array<string | undefined> = [];
  const frame = (line: string) => {
    const payload = Buffer.from(`${line}\n`);
    const header = Buffer.alloc(8);
    header[0] = 1; // stdout
    header.writeUInt32BE(payload.length, 4);
    return Buffer.concat([header, payload]);
  };
  const stamp = (line: string) => BigInt(Date.parse(line.slice(0, 19) + 'Z')) * 1_000_000_000n + BigInt(line.slice(20, 29));
  const fake = {
    modem: new Docker({ socketPath: '/nonexistent' }).modem,
    getEvents: async () => new PassThrough(),
    listContainers: async () => [{ Id: 'c1', Labels: { 'berth.service_id': 's1' } }],
    getContainer: () => ({
      inspect: async () => ({ State: { FinishedAt: '0001-01-01T00:00:00Z' } }),
      logs: async (opts: { since?: string }) => {
        sinces.push(opts.since);
        const [s, n = '0'] = (opts.since ?? '0').split('.');
        const since = BigInt(s!) * 1_000_000_000n + BigInt(n.padEnd(9, '0'));
        const stream = new PassThrough();
        stream.end(Buffer.concat(OUTPUT.filter((l) => stamp(l) >= since).map(frame)));
        return stream;
      },
    }),
  };
  return { docker: fake as unknown as Docker, sinces };
}

/** the resume point the database gives after the first `n` lines are recorded */
function pointAfter(n: number): ResumePoint | null {
  if (n === 0) return null;
  const micros = OUTPUT.slice(0, n).map((l) => microsOf(l.split(' ')[0]!)!);
  return { micros: micros.at(-1)!, recorded: micros.filter((m) => m === micros.at(-1)).length };
}

async function follow(point: () => ResumePoint | null, line: ObserverHandlers['line'] = async () => {}) {
  const { docker, sinces } = daemon();
  const errors: unknown[] = [];
  const o = observeDocker(docker, { event: async () => {}, line, resumeFrom: async () => point() }, (err) => errors.push(err));
  await o.followRunning();
  await new Promise((r) => setTimeout(r, 50));
  return { o, sinces, errors };
}

describe('docker observer: resuming a re-adopted replica', () => {
  test('after any prefix of the output, exactly the rest; Docker is asked from the recorded line\'s microsecond', async () => {
    for (let n = 0; n <= OUTPUT.length; n++) {
      const got: string[] = [];
      const { o, sinces } = await follow(() => pointAfter(n), async (_s, _c, _micros, text) => { got.push(text); });
      o.stop();
      assert.deepEqual(got, TEXTS.slice(n), `after ${n} lines`);
      assert.equal(sinces[0], n === 0 ? undefined : sinceOf(pointAfter(n)!.micros));
    }
  });

  test('lines are handed over with their microsecond, as stored', async () => {
    const got: string[] = [];
    const { o } = await follow(() => null, async (_s, _c, micros) => { got.push(isoOfMicros(micros)); });
    o.stop();
    assert.deepEqual(got, ['2026-11-26T10:00:00.000001Z', '2026-11-26T10:00:00.000002Z', '2026-11-26T10:00:00.000002Z',
      '2026-11-26T10:00:00.000002Z', '2026-11-26T10:00:01.000000Z']);
  });

  test('a line that cannot be recorded ends the following; the next round resumes at that line', async () => {
    const recorded: string[] = [];
    let failing = true;
    const line: ObserverHandlers['line'] = async (_s, _c, _micros, text) => {
      if (text === 'c' && failing) { failing = false; throw new Error('database unavailable'); }
      recorded.push(text);
    };
    const { o, errors } = await follow(() => pointAfter(recorded.length), line);
    assert.deepEqual(recorded, ['a', 'b'], 'nothing after the line that failed');
    assert.match(String(errors[0]), /database unavailable/);
    await o.followRunning(); // the worker's next round
    await new Promise((r) => setTimeout(r, 50));
    o.stop();
    assert.deepEqual(recorded, TEXTS);
  });
});
