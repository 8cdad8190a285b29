// An MCP server over Streamable HTTP for agent tests: the npm server-everything's MCP server
// (its createServer) behind the MCP SDK's StreamableHTTPServerTransport, one session per
// `initialize`, served at /mcp on PORT (default 8080) with node:http. The only thing added is a
// record of the headers every request brought (GET /__requests answers them, newest last;
// DELETE /__requests clears them) and, when REQUIRE_HEADER_NAME is set, a 401 for any request
// without REQUIRE_HEADER_NAME: REQUIRE_HEADER_VALUE, so a test sees a connector's header arrive.
// Resolves the SDK and the server from node_modules next to this file (the image links it to
// /opt/mcp/everything/node_modules).
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createServer as createMcpServer } from '@modelcontextprotocol/server-everything/dist/server/index.js';

const requireName = process.env.REQUIRE_HEADER_NAME?.toLowerCase();
const requireValue = process.env.REQUIRE_HEADER_VALUE ?? '';

let recorded = [];
/** session id → transport */
const sessions = new Map();

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function rpcError(res, status, code, message) {
  json(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/** a new MCP server and its transport, kept by session id once `initialize` made one */
async function newSession() {
  const { server, cleanup } = createMcpServer();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sid) => { sessions.set(sid, transport); },
  });
  transport.onclose = () => {
    const sid = transport.sessionId;
    if (sid && sessions.delete(sid)) cleanup(sid);
  };
  await server.connect(transport);
  return transport;
}

async function handle(req, res) {
  const url = new URL(req.url ?? '/', 'http://mcp');
  if (url.pathname === '/__requests') {
    if (req.method === 'DELETE') { recorded = []; res.writeHead(204).end(); return; }
    return json(res, 200, recorded);
  }
  recorded.push({ method: req.method, path: req.url, headers: req.headers });
  if (requireName && req.headers[requireName] !== requireValue) {
    return rpcError(res, 401, -32001, `Unauthorized: the ${requireName} header is missing or wrong`);
  }
  if (url.pathname !== '/mcp') return json(res, 404, { error: `no route ${req.method} ${url.pathname}` });

  const sid = req.headers['mcp-session-id'];
  if (typeof sid === 'string' && sid !== '') {
    const transport = sessions.get(sid);
    if (!transport) return rpcError(res, 404, -32001, 'Session not found');
    return transport.handleRequest(req, res);
  }
  if (req.method !== 'POST') return rpcError(res, 400, -32000, 'Bad Request: No valid session ID provided');
  // without a session id only `initialize` is valid; the transport itself refuses anything else
  const transport = await newSession();
  await transport.handleRequest(req, res);
}

const server = createHttpServer((req, res) => {
  handle(req, res).catch((err) => {
    process.stderr.write(`mcp http: ${err?.stack ?? err}\n`);
    if (!res.headersSent) rpcError(res, 500, -32603, 'Internal server error');
    else res.destroy();
  });
});
server.listen(Number(process.env.PORT ?? 8080), '0.0.0.0', () => {
  process.stdout.write(`mcp http server listening on ${server.address().port}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
