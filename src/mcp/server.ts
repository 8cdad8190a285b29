// berth's MCP server for one caller (decision 0196): the SDK's low-level Server with berth's
// handlers — tools/list (what the caller's role and reach allow), tools/call (arguments
// validated against the tool's TypeBox schema; an AppError becomes a tool error carrying berth's
// error body, never a protocol error), and resource templates for a deployment's log and a
// service's manifests. Stateless: one per HTTP request, so any berth process answers any call.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema, ListResourceTemplatesRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ValidateFunction } from 'ajv';
import type { AppContext } from '../context.ts';
import { AppError, invalid } from '../lib/errors.ts';
import type { Principal } from '../modules/access/principal.ts';
import type { Role } from '../modules/access/roles.ts';
import { recordMutation } from '../modules/audit/audit.record.ts';
import { makeAjv } from '../http/ajv.ts';
import { errorBody } from '../http/errors.ts';
import { validationProblems, type ValidationIssue } from '../http/validation-messages.ts';
import { toolsFor, TOOLS } from './catalog.ts';
import { readResource, RESOURCE_TEMPLATES } from './resources.ts';
import type { ToolCall, ToolDef } from './tool.ts';

// arguments are validated as request bodies are (the same Ajv settings)
const ajv = makeAjv(false);
const validators = new Map<string, ValidateFunction>(TOOLS.map((t) => [t.name, ajv.compile(t.input)]));

export interface CallerFacts { principal: Principal; role: Role | null; requestId: string; userAgent: string | null }

/** berth's error body for a failure, as the REST API answers it */
function errorResult(err: unknown, requestId: string, log: AppContext['logger']): CallToolResult {
  if (!(err instanceof AppError)) log.error({ err }, 'MCP tool failed');
  const body = err instanceof AppError ? errorBody(err.status, err.code, err.message, requestId, err.problems)
    : errorBody(500, 'internal_error', 'Internal server error', requestId);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

function listing(t: ToolDef) {
  return {
    name: t.name, title: t.title, description: t.description, inputSchema: t.input as never,
    annotations: { title: t.title, readOnlyHint: t.action === 'read', ...(t.action === 'write' ? t.hints : {}) },
  };
}

export function createMcpServer(ctx: AppContext, caller: CallerFacts): Server {
  const server = new Server({ name: 'berth', title: 'berth', version: ctx.version }, {
    capabilities: { tools: {}, resources: {} },
    instructions: 'berth manages organizations, projects, environments and the services in them. Names work wherever an id does; '
      + 'when a name is ambiguous the error lists the candidates. Acting tools (deploy, stop, variables, runs) change what runs: ask first.',
  });
  const offered = toolsFor(caller.principal, caller.role);

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: offered.map(listing) }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const t = offered.find((x) => x.name === request.params.name);
    try {
      if (!t) {
        const exists = TOOLS.some((x) => x.name === request.params.name);
        throw exists ? new AppError(403, 'forbidden', `The tool ${request.params.name} is not available to you (your role or your credential's reach does not allow it)`)
          : new AppError(404, 'not_found', `No tool named ${request.params.name}`);
      }
      const args = structuredClone(request.params.arguments ?? {});
      const validate = validators.get(t.name)!;
      if (!validate(args)) throw invalid(validationProblems(validate.errors as ValidationIssue[], 'arguments'));
      const progressToken = request.params._meta?.progressToken;
      const call: ToolCall = {
        ctx, principal: caller.principal, signal: extra.signal,
        progress: async (progress, total, message) => {
          if (progressToken === undefined) return;
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, ...(total ? { total } : {}), message } });
        },
        audit: async (eventType, targetType, targetId, change = '') => {
          await recordMutation(ctx.db, caller.principal, { eventType, targetType, targetId, change, userAgent: caller.userAgent, requestId: caller.requestId })
            .catch((err: unknown) => ctx.logger.error({ err }, 'could not write the audit event of an MCP tool call'));
        },
      };
      const result = await t.run(call, args as never);
      const structured = result !== null && typeof result === 'object' && !Array.isArray(result) ? (result as Record<string, unknown>) : { result };
      return { content: [{ type: 'text', text: JSON.stringify(result, null, 1) }], structuredContent: structured };
    } catch (err) {
      return errorResult(err, caller.requestId, ctx.logger);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => readResource(ctx, caller.principal, request.params.uri));
  return server;
}
