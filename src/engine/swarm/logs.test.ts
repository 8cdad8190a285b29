import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseServiceLogLine } from './logs.ts';

test('a service log line with details: its task, its time to the microsecond, its text as written', () => {
  const line = '2026-11-26T18:21:56.405726561Z com.docker.swarm.node.id=s45ka1e46cpgafuvi8qiylj33,com.docker.swarm.service.id=nl8q1n01rgqjptewdm1w1in15,com.docker.swarm.task.id=8dcyowmeioctqmwstufji5p hello  from  task ';
  assert.deepEqual(parseServiceLogLine(line), { taskId: '8dcyowmeioctqmwstufji5p', micros: 1795717316405726n, text: 'hello  from  task ' });
  assert.deepEqual(parseServiceLogLine('2026-11-26T18:21:56.405726Z com.docker.swarm.task.id=t1')!.text, '', 'an empty line');
});

test('lines without a time or without the task detail are not taken for output', () => {
  assert.equal(parseServiceLogLine('hello'), null);
  assert.equal(parseServiceLogLine('2026-11-26T18:21:56Z hello world'), null);
  assert.equal(parseServiceLogLine('yesterday com.docker.swarm.task.id=t1 hi'), null);
  assert.equal(parseServiceLogLine('2026-11-26T18:21:56Z com.docker.swarm.node.id=n1 no task'), null);
});
