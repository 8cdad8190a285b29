// The scripted model: an Anthropic-compatible Messages API endpoint for agent tests, in plain
// JavaScript on node:http so any node runs it (the test image starts it on PORT, default 8080).
//
// POST [any prefix]/v1/messages (query string ignored): the script is the first `[script:NAME]`
// marker in the system prompt or the messages' text, the step is the number of assistant messages
// already in `messages`. A step is { text } (end_turn), { tool_use: { name, input } } (tool_use),
// or both, optionally with sleep_ms before the answer; past the last step, or without a marker,
// the answer is the text "ok". Streamed as Anthropic's SSE events when "stream": true, a plain
// message otherwise; usage is always input 100 / output 20. An x-api-key (or Bearer token) of
// `bad-key` gets 401 with Anthropic's authentication_error body.
// POST [prefix]/v1/messages/count_tokens answers { input_tokens: 10 }; anything else 404.
// Every request but the control ones is recorded: { method, path (with query), headers, body }.
// Control: GET /__requests (the records), DELETE /__requests, PUT /__scripts (replaces them).
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const INPUT_TOKENS = 100;
const OUTPUT_TOKENS = 20;
const MARKER = /\[script:([A-Za-z0-9_.-]+)\]/;

let scripts = {};
let recorded = [];

const id = (prefix) => `${prefix}${randomBytes(12).toString('hex')}`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req_') });
  res.end(JSON.stringify(body));
}

function apiError(res, status, type, message) {
  json(res, status, { type: 'error', error: { type, message } });
}

/** every text the request carries, system prompt first, in order */
function texts(body) {
  const out = [];
  const walk = (content) => {
    if (typeof content === 'string') out.push(content);
    else if (Array.isArray(content)) {
      for (const block of content) {
        if (typeof block === 'string') out.push(block);
        else if (block && typeof block.text === 'string') out.push(block.text);
        else if (block && block.type === 'tool_result') walk(block.content);
      }
    }
  };
  walk(body.system);
  for (const message of Array.isArray(body.messages) ? body.messages : []) walk(message?.content);
  return out;
}

/** the step this request is at: { step, script } (step null → the default "ok") */
function stepFor(body) {
  let name = null;
  for (const text of texts(body)) {
    const m = MARKER.exec(text);
    if (m) { name = m[1]; break; }
  }
  const index = (Array.isArray(body.messages) ? body.messages : []).filter((m) => m?.role === 'assistant').length;
  const steps = name !== null && Array.isArray(scripts[name]) ? scripts[name] : [];
  return { script: name, index, step: steps[index] ?? null };
}

/** the content blocks and stop reason of a step */
function answerOf(step) {
  if (!step) return { blocks: [{ type: 'text', text: 'ok' }], stop: 'end_turn' };
  const blocks = [];
  if (typeof step.text === 'string') blocks.push({ type: 'text', text: step.text });
  if (step.tool_use) blocks.push({ type: 'tool_use', id: id('toolu_'), name: step.tool_use.name, input: step.tool_use.input ?? {} });
  if (blocks.length === 0) blocks.push({ type: 'text', text: 'ok' });
  return { blocks, stop: step.tool_use ? 'tool_use' : 'end_turn' };
}

function message(body, content, stop) {
  return {
    id: id('msg_'), type: 'message', role: 'assistant', model: body.model ?? 'scripted-model', content,
    stop_reason: stop, stop_sequence: null,
    usage: { input_tokens: INPUT_TOKENS, output_tokens: OUTPUT_TOKENS, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

/** `text` in a few pieces, so clients put deltas together */
function pieces(text, n = 3) {
  const size = Math.max(1, Math.ceil(text.length / n));
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

function stream(res, body, blocks, stop) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': id('req_') });
  const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  const start = message(body, [], null);
  start.usage.output_tokens = 1;
  send('message_start', { message: start });
  send('ping', {});
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const text of pieces(block.text)) send('content_block_delta', { index, delta: { type: 'text_delta', text } });
    } else {
      send('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      for (const partial_json of pieces(JSON.stringify(block.input))) send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: OUTPUT_TOKENS } });
  send('message_stop', {});
  res.end();
}

function badKey(headers) {
  const bearer = /^Bearer\s+(.*)$/i.exec(headers.authorization ?? '')?.[1];
  return headers['x-api-key'] === 'bad-key' || bearer === 'bad-key';
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (raw === '') return { raw, parsed: null };
  try { return { raw, parsed: JSON.parse(raw) }; } catch { return { raw, parsed: undefined }; }
}

async function handle(req, res) {
  const url = new URL(req.url ?? '/', 'http://scripted-model');
  const { raw, parsed } = await readBody(req);
  if (url.pathname === '/__requests' && req.method === 'GET') return json(res, 200, recorded);
  if (url.pathname === '/__requests' && req.method === 'DELETE') { recorded = []; res.writeHead(204).end(); return; }
  if (url.pathname === '/__scripts' && req.method === 'PUT') {
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return json(res, 400, { error: 'scripts must be a JSON object' });
    scripts = parsed;
    res.writeHead(204).end();
    return;
  }

  recorded.push({ method: req.method, path: req.url, headers: req.headers, body: parsed === undefined || parsed === null ? raw : parsed });
  const isMessages = /(^|\/)v1\/messages$/.test(url.pathname);
  const isCount = /(^|\/)v1\/messages\/count_tokens$/.test(url.pathname);
  if (req.method !== 'POST' || (!isMessages && !isCount)) return apiError(res, 404, 'not_found_error', `no route ${req.method} ${url.pathname}`);
  if (badKey(req.headers)) return apiError(res, 401, 'authentication_error', 'invalid x-api-key');
  if (!parsed || typeof parsed !== 'object') return apiError(res, 400, 'invalid_request_error', 'the body is not a JSON object');
  if (isCount) return json(res, 200, { input_tokens: 10 });

  const { step } = stepFor(parsed);
  if (step && Number(step.sleep_ms) > 0) await sleep(Number(step.sleep_ms));
  const { blocks, stop } = answerOf(step);
  if (parsed.stream === true) stream(res, parsed, blocks, stop);
  else json(res, 200, message(parsed, blocks, stop));
}

const server = createServer((req, res) => {
  handle(req, res).catch((err) => {
    process.stderr.write(`scripted model: ${err?.stack ?? err}\n`);
    if (!res.headersSent) apiError(res, 500, 'api_error', String(err?.message ?? err));
    else res.destroy();
  });
});
server.listen(Number(process.env.PORT ?? 8080), '0.0.0.0', () => {
  process.stdout.write(`scripted model listening on ${server.address().port}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
