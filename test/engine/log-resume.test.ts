// Replica output across a berth restart (issue 31, item 5): three replicas write numbered lines
// without pause — a first burst, then steady lines every ~20 ms and bursts written in one go
// (their lines stamped a few microseconds apart) — and berth is stopped while it is still
// recording the first bursts, so the replicas' recorded lines end at different times, then
// started again. The re-adopted replicas resume each after its own last recorded
// line: every replica's numbers are recorded from 1, contiguous, none missing, none twice.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { busyboxImage, NO_DOCKER, startGitServer, testDocker, type GitServer } from '../support/docker.ts';
import { startEngineBerth, type EngineBerth } from '../support/engine-berth.ts';
import { eventually } from '../support/harness.ts';

const found = await testDocker();

// 1,500 lines at once, then rounds of 50 steady lines (~1 s) and a burst of 40 through one pipe
const writer = [
  'seq 1 1500 | sed "s/^/replica-$HOSTNAME /"',
  'n=1500',
  'while :; do',
  '  i=0; while [ $i -lt 50 ]; do i=$((i+1)); n=$((n+1)); echo "replica-$HOSTNAME $n"; usleep 20000; done',
  '  seq $((n+1)) $((n+40)) | sed "s/^/replica-$HOSTNAME /"; n=$((n+40))',
  'done',
].join('\n');

const dockerfile = (base: string) => `FROM ${base}
COPY writer.sh /writer.sh
CMD ["sh", "/writer.sh"]
`;

describe('docker engine: replica output across a berth restart', { skip: found ? false : NO_DOCKER, timeout: 600_000 }, () => {
  let berth: EngineBerth;
  let git: GitServer;
  let appId = '';
  const docker = found?.docker!;

  before(async () => {
    const base = await busyboxImage(docker);
    git = await startGitServer();
    await git.createRepo('writer', { Dockerfile: dockerfile(base), 'writer.sh': `${writer}\n` });
    berth = await startEngineBerth(found!.host);
  });
  after(async () => {
    if (appId) await berth?.api('DELETE', `/application/${appId}`).catch(() => {});
    await eventually(async () => (await docker.listContainers({ all: true, filters: { label: [`berth.service_id=${appId}`] } })).length === 0, 60_000).catch(() => {});
    for (const c of await docker.listContainers({ all: true, filters: { label: [`berth.service_id=${appId}`] } })) {
      await docker.getContainer(c.Id).remove({ force: true, v: true }).catch(() => {});
    }
    await berth?.close();
    await git?.close();
  });

  /** the numbers recorded for each replica, in the order they were recorded */
  const recorded = async (): Promise<Map<string, number[]>> => {
    const r = await berth.api('GET', `/application/${appId}/log?tail=10000`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const byReplica = new Map<string, number[]>();
    for (const l of r.body.results as Array<{ kind: string; message: string }>) {
      const m = /^replica-(\S+) (\d+)$/.exec(l.message);
      if (l.kind !== 'RUNTIME' || !m) continue;
      byReplica.set(m[1]!, [...(byReplica.get(m[1]!) ?? []), Number(m[2])]);
    }
    return byReplica;
  };
  /** the lowest over the replicas of their highest recorded number, once all three have lines */
  const least = async () => {
    const r = await recorded();
    return r.size === 3 ? Math.min(...[...r.values()].map((n) => Math.max(...n))) : 0;
  };

  test('three replicas writing while berth restarts: every line recorded once, none lost', async () => {
    const created = await berth.api('POST', `/environment/${await environment()}/application`, {
      name: 'writer', git_repository: { url: `${git.baseUrl}/writer.git`, branch: 'main' },
      cpu: 100, memory: 32, min_running_instances: 3, max_running_instances: 3,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    appId = created.body.id;
    const final = await berth.settle((await berth.api('POST', `/application/${appId}/deploy`)).body.id);
    assert.equal(final.status, 'DEPLOYED', final.message);

    // mid-stream: every replica has lines recorded, and lines written (the first burst) not yet
    await eventually(async () => (await least()) >= 20, 60_000, 50);
    await berth.stop(); // the replicas go on writing while berth is down
    await new Promise((r) => setTimeout(r, 1500));
    await berth.restart();
    // well past the first burst on every replica, with a few steady rounds recorded after the restart
    await eventually(async () => (await least()) >= 1500 + 3 * 90, 120_000, 250);

    const byReplica = await recorded();
    assert.equal(byReplica.size, 3, `three replicas: ${[...byReplica.keys()].join(', ')}`);
    for (const [replica, numbers] of byReplica) {
      const wrong = numbers.findIndex((n, i) => n !== i + 1);
      assert.equal(wrong, -1, `replica ${replica}: line ${wrong + 1} recorded is number ${numbers[wrong]} `
        + `(around it: ${numbers.slice(Math.max(0, wrong - 3), wrong + 4).join(', ')}); ${numbers.length} lines recorded`);
    }
  });

  async function environment(): Promise<string> {
    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `log-resume-${Date.now()}` })).body;
    return (await berth.api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT' })).body.id;
  }
});
