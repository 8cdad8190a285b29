// The agent-run fixtures work on a real daemon: from a curl container (the agent base image) on
// the fixtures' network, the scripted model answers a streamed /v1/messages with the scripted
// tool_use, then (one assistant message later) the final text, refuses bad-key with Anthropic's
// 401, and records what it got; the HTTP MCP server answers `initialize` only with its header and
// records it; the output receiver records POSTs; removeByLabel leaves nothing behind.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type Docker from 'dockerode';
import {
  agentBaseImage, containerOutput, fixtureLabels, removeByLabel, startHttpMcpServer, startOutputReceiver, startScriptedModel,
  type HttpMcpServer, type ScriptedModel,
} from '../support/agent-fixtures.ts';
import { NO_DOCKER, testDocker } from '../support/docker.ts';

const env = await testDocker();
const NETWORK = `berth-test-agent-fixtures-${process.pid}`;
const TOOL_INPUT = { message: 'hi from the script', n: 3 };

/** SSE text → [{ event, data }] */
function events(text: string): Array<{ event: string; data: any }> {
  return text.split(/\n\n+/).filter((b) => b.trim()).map((block) => {
    const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
    const data = /^data: (.*)$/m.exec(block)?.[1];
    return { event, data: data ? JSON.parse(data) : null };
  });
}

describe('agent fixtures', { skip: env ? false : NO_DOCKER }, () => {
  let docker: Docker;
  let base: string;
  let model: ScriptedModel;
  let mcp: HttpMcpServer;

  /** curl -sS -i in a container of the agent base image on the network: status, headers, body */
  const curl = async (...args: string[]) => {
    const c = await docker.createContainer({
      Image: base, Labels: fixtureLabels('agent-fixtures-curl'), Cmd: ['curl', '-sS', '-i', '--max-time', '20', ...args],
      HostConfig: { NetworkMode: NETWORK },
    });
    try {
      await c.start();
      const { StatusCode } = await c.wait();
      const out = await containerOutput(c);
      assert.equal(StatusCode, 0, `curl failed: ${out}`);
      const split = out.indexOf('\r\n\r\n');
      const head = out.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(head.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      return { status: Number(head[0]!.split(' ')[1]), headers, body: out.slice(split + 4) };
    } finally {
      await c.remove({ force: true });
    }
  };
  const messages = (body: unknown, key = 'test-key', path = '/v1/messages?beta=true') =>
    curl('-X', 'POST', `${model.baseUrlInNetwork}${path}`, '-H', `x-api-key: ${key}`, '-H', 'anthropic-version: 2023-06-01',
      '-H', 'content-type: application/json', '--data-binary', JSON.stringify(body));
  const first = { role: 'user', content: [{ type: 'text', text: 'please work [script:x]' }] };
  const toolTurn = [
    first,
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'mcp__everything__echo', input: TOOL_INPUT }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Echo: hi' }] },
  ];

  before(async () => {
    docker = env!.docker;
    base = await agentBaseImage(docker);
    [model, mcp] = await Promise.all([
      startScriptedModel(docker, { network: NETWORK, alias: 'model' }),
      startHttpMcpServer(docker, { network: NETWORK, alias: 'connector', requireHeader: { name: 'X-Connector-Token', value: 'sealed-value' } }),
    ]);
    await model.setScripts({ x: [{ tool_use: { name: 'mcp__everything__echo', input: TOOL_INPUT } }, { text: 'all done, thanks', sleep_ms: 50 }] });
  }, { timeout: 15 * 60_000 }); // a cold cache runs debootstrap and npm install
  after(async () => {
    if (env) await removeByLabel(env.docker);
  });

  test('a streamed request at step 0 gets the scripted tool_use as Anthropic SSE', async () => {
    const res = await messages({ model: 'claude-test', max_tokens: 1024, stream: true, system: 'You are a test.', messages: [first] });
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type']!, /^text\/event-stream/);
    const evs = events(res.body);
    assert.deepEqual(evs.map((e) => e.event).filter((e) => e !== 'ping' && e !== 'content_block_delta'),
      ['message_start', 'content_block_start', 'content_block_stop', 'message_delta', 'message_stop']);
    assert.equal(evs[0]!.data.message.usage.input_tokens, 100);
    const block = evs.find((e) => e.event === 'content_block_start')!.data.content_block;
    assert.equal(block.type, 'tool_use');
    assert.equal(block.name, 'mcp__everything__echo');
    assert.match(block.id, /^toolu_/);
    const deltas = evs.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta);
    assert.ok(deltas.length > 1 && deltas.every((d) => d.type === 'input_json_delta'));
    assert.deepEqual(JSON.parse(deltas.map((d) => d.partial_json).join('')), TOOL_INPUT);
    const end = evs.find((e) => e.event === 'message_delta')!.data;
    assert.equal(end.delta.stop_reason, 'tool_use');
    assert.equal(end.usage.output_tokens, 20);
  });

  test('one assistant message later the final text comes, streamed or not, under any path prefix', async () => {
    const res = await messages({ model: 'claude-test', max_tokens: 1024, stream: true, messages: toolTurn });
    assert.equal(res.status, 200);
    const evs = events(res.body);
    assert.equal(evs.find((e) => e.event === 'content_block_start')!.data.content_block.type, 'text');
    assert.equal(evs.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.text).join(''), 'all done, thanks');
    assert.equal(evs.find((e) => e.event === 'message_delta')!.data.delta.stop_reason, 'end_turn');

    const plain = await messages({ model: 'claude-test', max_tokens: 1024, messages: toolTurn }, 'test-key', '/gateway/llm/v1/messages');
    assert.equal(plain.status, 200);
    const msg = JSON.parse(plain.body);
    assert.deepEqual([msg.type, msg.role, msg.stop_reason, msg.content], ['message', 'assistant', 'end_turn', [{ type: 'text', text: 'all done, thanks' }]]);
    assert.deepEqual([msg.usage.input_tokens, msg.usage.output_tokens], [100, 20]);

    const past = await messages({ model: 'claude-test', max_tokens: 8, messages: [...toolTurn, { role: 'assistant', content: 'x' }, { role: 'user', content: 'more' }] });
    assert.deepEqual(JSON.parse(past.body).content, [{ type: 'text', text: 'ok' }], 'past the last step: "ok"');
    const count = await messages({ model: 'claude-test', messages: [first] }, 'test-key', '/v1/messages/count_tokens?beta=true');
    assert.deepEqual(JSON.parse(count.body), { input_tokens: 10 });
  });

  test('bad-key gets 401 with Anthropic\'s error body; every request is recorded', async () => {
    const res = await messages({ model: 'claude-test', max_tokens: 8, messages: [first] }, 'bad-key');
    assert.equal(res.status, 401);
    assert.deepEqual(JSON.parse(res.body), { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });

    const recorded = await model.requests();
    assert.deepEqual(recorded.map((r) => `${r.method} ${r.path}`), [
      'POST /v1/messages?beta=true', 'POST /v1/messages?beta=true', 'POST /gateway/llm/v1/messages', 'POST /v1/messages?beta=true',
      'POST /v1/messages/count_tokens?beta=true', 'POST /v1/messages?beta=true',
    ]);
    assert.equal(recorded[0]!.headers['x-api-key'], 'test-key');
    assert.equal(recorded[0]!.headers['anthropic-version'], '2023-06-01');
    assert.deepEqual(recorded[0]!.body.messages, [first]);
    assert.equal(recorded.at(-1)!.headers['x-api-key'], 'bad-key');
    await model.reset();
    assert.deepEqual(await model.requests(), []);
  });

  test('the HTTP MCP server answers initialize with its header, 401 without, and records the header', async () => {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'berth-test', version: '1' } } });
    const mcpHeaders = ['-H', 'content-type: application/json', '-H', 'accept: application/json, text/event-stream'];
    const refused = await curl('-X', 'POST', mcp.urlInNetwork, ...mcpHeaders, '--data-binary', init);
    assert.equal(refused.status, 401);
    const res = await curl('-X', 'POST', mcp.urlInNetwork, ...mcpHeaders, '-H', 'X-Connector-Token: sealed-value', '--data-binary', init);
    assert.equal(res.status, 200);
    assert.ok(res.headers['mcp-session-id'], 'a session was opened');
    const result = events(res.body).find((e) => e.data?.id === 1)!.data.result;
    assert.equal(result.serverInfo.name, 'mcp-servers/everything');
    assert.ok(result.capabilities.tools);
    const seen = await mcp.requests();
    assert.deepEqual(seen.map((r) => r.headers['x-connector-token']), [undefined, 'sealed-value']);
  });

  test('the output receiver records POSTs', async () => {
    const receiver = await startOutputReceiver();
    try {
      const res = await fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-run': 'r1' }, body: '{"a":1}' });
      assert.equal(res.status, 200);
      await receiver.waitFor(1, 2000);
      assert.deepEqual(receiver.received[0]!.body, { a: 1 });
      assert.equal(receiver.received[0]!.headers['x-run'], 'r1');
      await assert.rejects(receiver.waitFor(2, 100), /1 of 2 POSTs/);
    } finally {
      await receiver.close();
    }
  });

  test('stop and removeByLabel leave no container or network behind', async () => {
    await model.stop();
    await mcp.stop();
    await removeByLabel(docker);
    const label = [`berth-test.owner=${fixtureLabels('x')['berth-test.owner']}`];
    assert.deepEqual(await docker.listContainers({ all: true, filters: { label } }), []);
    assert.deepEqual(await docker.listNetworks({ filters: { label } }), []);
    await assert.rejects(docker.getNetwork(NETWORK).inspect(), /no such network|404/i);
  });
});
