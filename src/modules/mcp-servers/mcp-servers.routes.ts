// HTTP routes of MCP connectors: organization-scoped list/create, top-level get/edit/delete.
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { PageQuery, idParams } from '../../http/schemas.ts';
import { McpServer, McpServerList, McpServerRequest } from './mcp-servers.schemas.ts';

const tags = ['MCP Servers'];
const OrgParams = idParams('organizationId');
const McpParams = idParams('mcpServerId');

export function mcpServerRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.mcpServers;

  app.get('/organization/:organizationId/mcpServer', {
    schema: { tags, operationId: 'listMcpServers', summary: 'List the MCP servers the caller may see (shared ones and their own)', params: OrgParams, querystring: PageQuery, response: { 200: McpServerList } },
  }, async (req) => svc.list(req.principal, req.params.organizationId, pageRequest(req.query, 'configuration')));

  app.post('/organization/:organizationId/mcpServer', {
    schema: { tags, operationId: 'createMcpServer', params: OrgParams, body: McpServerRequest, response: { 201: McpServer } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.params.organizationId, req.body)));

  app.get('/mcpServer/:mcpServerId', {
    schema: { tags, operationId: 'getMcpServer', params: McpParams, response: { 200: McpServer } },
  }, async (req) => svc.get(req.principal, req.params.mcpServerId));

  app.put('/mcpServer/:mcpServerId', {
    schema: { tags, operationId: 'editMcpServer', summary: 'Replace an MCP server (all headers too)', params: McpParams, body: McpServerRequest, response: { 200: McpServer } },
  }, async (req) => svc.update(req.principal, req.params.mcpServerId, req.body));

  app.delete('/mcpServer/:mcpServerId', {
    schema: { tags, operationId: 'deleteMcpServer', summary: 'Delete an MCP server (detached from every workflow); 200 "MCP server deleted"', params: McpParams, response: { 200: Type.Object({ message: Type.String() }) } },
  }, async (req) => {
    await svc.remove(req.principal, req.params.mcpServerId);
    return { message: 'MCP server deleted' };
  });
}
