// The task table (handlers.ts): a handler for every kind of src/queue/tasks.ts and for no other (a
// kind added there without a handler fails here, on top of the type check); the schedules are of
// kinds with a handler, as five-field crons; subscribeTasks subscribes each kind once per queue with
// its concurrency, installs its schedule and runs its atStart once, and a later call only puts its
// handlers in place of the queue's. On a recording queue holding one handler per kind, as the real
// one does: nothing runs for real.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AppContext } from '../context.ts';
import type { TaskHandler, TaskQueue } from '../queue/queue.ts';
import { TASK_KINDS, type TaskKind } from '../queue/tasks.ts';
import { subscribeTasks, TASK_HANDLERS, TASK_SCHEDULES } from './handlers.ts';

test('every task kind has a handler, and every handler a kind', () => {
  assert.deepEqual(Object.keys(TASK_HANDLERS).sort(), Object.keys(TASK_KINDS).sort());
});

test('the schedules are of kinds with a handler, as five-field crons', () => {
  assert.ok(Object.keys(TASK_SCHEDULES).length > 0);
  for (const [kind, cron] of Object.entries(TASK_SCHEDULES)) {
    assert.ok(kind in TASK_HANDLERS, kind);
    assert.equal(cron!.split(' ').length, 5, `${kind}: ${cron}`);
  }
});

test('subscribeTasks: each kind once per queue, with its concurrency and schedule; a later call switches the context', async () => {
  const worked: Array<{ kind: TaskKind; concurrency: number | undefined }> = [];
  const handlers = new Map<TaskKind, TaskHandler>();
  const scheduled: Array<{ kind: TaskKind; cron: string }> = [];
  const queue = {
    async work(kind: TaskKind, handler: TaskHandler, options?: { concurrency?: number }) {
      const first = !handlers.has(kind);
      handlers.set(kind, handler);
      if (first) worked.push({ kind, concurrency: options?.concurrency });
      return first;
    },
    async schedule(kind: TaskKind, cron: string) { scheduled.push({ kind, cron }); },
  } as unknown as TaskQueue;
  const ticked: string[] = [];
  let sweeps = 0;
  let syncs = 0;
  const context = (name: string) => ({
    name, queue, logger: { error() {} },
    services: {
      workflowRuns: { tickSchedules: async () => { ticked.push(name); return 0; } },
      deploymentRunner: { sweep: async () => { sweeps++; return { resumed: 0, failed: 0 }; } },
      domains: { lifecycle: { syncIngress: async () => { syncs++; } } },
    },
  }) as unknown as AppContext;

  await subscribeTasks(context('first'));
  assert.deepEqual(worked.map((w) => w.kind).sort(), Object.keys(TASK_KINDS).sort());
  for (const w of worked) assert.equal(w.concurrency, (TASK_HANDLERS[w.kind] as { concurrency?: number }).concurrency, w.kind);
  assert.deepEqual(scheduled.sort((a, b) => a.kind.localeCompare(b.kind)),
    Object.entries(TASK_SCHEDULES).map(([kind, cron]) => ({ kind, cron })).sort((a, b) => a.kind.localeCompare(b.kind)));
  assert.equal(sweeps, 1, 'the deployment sweep ran once at start');
  assert.equal(syncs, 1, 'the ingress got the stored domains and certificates once at start');

  await subscribeTasks(context('second'), ['workflows.schedule', 'deployments.sweep']);
  assert.equal(worked.length, Object.keys(TASK_KINDS).length, 'nothing subscribed twice');
  assert.equal(scheduled.length, Object.keys(TASK_SCHEDULES).length);
  assert.equal(sweeps, 1, 'no second sweep at start');
  const tick = handlers.get('workflows.schedule')!;
  await tick({}, { id: 'task-1', retryCount: 0, signal: new AbortController().signal });
  assert.deepEqual(ticked, ['second'], 'the handler goes through the latest context');
});
