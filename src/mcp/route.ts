// The Model Context Protocol over Streamable HTTP at /mcp (and /api/v1/mcp through the API's URL
// rewrite), stateless: each POST carries its JSON-RPC message(s) and gets the answer (JSON, or an
// SSE stream when a tool sends progress). Authentication, rate limiting and the request id are the
// API's own hooks; a workflow run's credential is accepted here and nowhere else. GET and DELETE
// (server-initiated streams, sessions) are 405: a stateless server has neither.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AppContext } from '../context.ts';
import type { App } from '../http/app.ts';
import { AppError } from '../lib/errors.ts';
import { highestRole } from './catalog.ts';
import { createMcpServer } from './server.ts';

export function registerMcpRoutes(app: App, ctx: AppContext): void {
  app.post('/mcp', { config: { hidden: true, runCredentials: true } }, async (request, reply) => {
    const principal = request.principal;
    const server = createMcpServer(ctx, {
      principal, role: await highestRole(ctx.db, principal), requestId: String(request.id),
      userAgent: `berth-mcp ${typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : ''}`.trim().slice(0, 500),
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: false });
    await server.connect(transport);
    // the headers the API's hooks set (request id, rate limit) go out with the transport's answer
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value as string);
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  const notHere = async () => {
    throw new AppError(405, 'method_not_allowed', 'berth\'s MCP server is stateless: send every message with POST /mcp', { allow: 'POST' });
  };
  app.get('/mcp', { config: { hidden: true, runCredentials: true } }, notHere);
  app.delete('/mcp', { config: { hidden: true, runCredentials: true } }, notHere);
}
