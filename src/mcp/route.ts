// The Model Context Protocol over Streamable HTTP at /mcp (and /api/v1/mcp through the API's URL
// rewrite), stateless: each POST carries its JSON-RPC message(s) and gets the answer (JSON, or an
// SSE stream when a tool sends progress). Authentication, rate limiting and the request id are the
// API's own hooks; a workflow run's credential is accepted here and nowhere else. GET and DELETE
// (server-initiated streams, sessions) are 405: a stateless server has neither.
import type { ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AppContext } from '../context.ts';
import type { App } from '../http/app-type.ts';
import { AppError } from '../lib/errors.ts';
import { createMcpServer } from './server.ts';

/**
 * The SDK answers streams with `Connection: keep-alive` whatever the request asked. A client (or
 * an egress proxy: tinyproxy sends `Connection: close`) that asked to close then sees the
 * connection kept, reuses it, and Node refuses the next request on it (400 "Client Error",
 * data after close). Node decides persistence from the request itself: the header is dropped.
 */
function leaveConnectionToNode(res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const last = args[args.length - 1];
    if (last && typeof last === 'object' && !Array.isArray(last)) {
      for (const key of Object.keys(last)) if (key.toLowerCase() === 'connection') delete (last as Record<string, unknown>)[key];
    }
    res.removeHeader('connection');
    return writeHead(...args);
  }) as ServerResponse['writeHead'];
}

export function registerMcpRoutes(app: App, ctx: AppContext): void {
  app.post('/mcp', { config: { hidden: true, runCredentials: true } }, async (request, reply) => {
    const principal = request.principal;
    const server = createMcpServer(ctx, {
      principal, role: await ctx.services.access.highestRole(principal), requestId: String(request.id),
      userAgent: `berth-mcp ${typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : ''}`.trim().slice(0, 500),
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: false });
    await server.connect(transport);
    // the headers the API's hooks set (request id, rate limit) go out with the transport's answer
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value as string);
    leaveConnectionToNode(reply.raw);
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
