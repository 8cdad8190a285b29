// The OpenAPI 3.1 document, generated from the routes' own TypeBox schemas as they are
// registered (never restated by hand), with both security schemes, the error responses of
// every operation and an example of every request body (src/http/examples, decision 0407).
// Served at /openapi.json; /docs renders it (src/http/docs.ts).
import type { RouteOptions } from 'fastify';
import { roleTableMarkdown } from '../modules/access/role-table.ts';
import { requestExample } from './examples/index.ts';
import { ErrorBody, optionalBody } from './schemas.ts';

interface RouteSchema {
  params?: { properties?: Record<string, unknown> };
  querystring?: { properties?: Record<string, unknown>; required?: string[] };
  body?: unknown;
  response?: Record<string, unknown>;
  tags?: string[];
  summary?: string;
  description?: string;
  operationId?: string;
}

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400': 'Bad request: validation error or invalid configuration',
  '401': 'Access token is missing or invalid',
  '403': 'Access forbidden',
  '404': 'Resource not found',
  '409': 'Conflict: name already taken or operation in progress',
  '413': 'Request body too large',
  '429': 'Too many requests (rate limit exceeded)',
  '500': 'Internal server error',
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  'API tokens': 'Organization API tokens (machine-to-machine; shown once)',
  'Agentic Workflows': 'AI-agent workflows run on a webhook or a cron schedule, and their runs',
  Applications: 'Services built from a git repository',
  Clusters: 'Where environments run, with the capacity one service may request',
  'Infrastructure as code': 'A project and its environments as a berth.yaml: plan, apply (one transaction), export, and the document\'s JSON Schema (decision 0745)',
  'Container registries': 'Registries containers and jobs pull their images from',
  Containers: 'Services run from an image',
  'Git tokens': 'Credentials berth clones private repositories with (applications, git jobs, agentic workflows)',
  'Git webhooks': 'Deploy on push: the payload URL per git provider and the organization\'s signing secret',
  Databases: 'Managed or container databases and their credentials',
  'Deployment rules': 'Defaults and schedules applied to environments of a project',
  Deployments: 'Deployment records, queues, logs and cancellation',
  Environments: 'Environments of a project, their actions, statuses and histories',
  Jobs: 'Cron and lifecycle jobs',
  'LLM Providers': 'Model providers agentic workflows call',
  'MCP Servers': 'MCP connectors agentic workflows can use',
  Members: 'Members, invitations and roles of an organization',
  'Organization Annotations and Labels Groups': 'Kubernetes annotations and labels shared by services',
  'Organization Webhooks': 'Outgoing webhooks, their deliveries and test pings',
  Backups: 'Database backups: take, list, restore (into a new database or in place), drills, download, policies and the organization\'s backup storage',
  'Organization Notification Channels': 'Slack, Discord and e-mail channels that carry failures (one message per incident) and their test messages',
  Organizations: 'Organizations, ownership and the audit log',
  Projects: 'Projects of an organization',
  Variables: 'Environment variables and secrets at every scope, aliases and overrides',
};

const MIN_SHARED_SIZE = 200;

/**
 * Schemas repeated across operations (a resource returned by create, get, edit and inside its
 * list; probe and port shapes…) move to components.schemas and are referenced, so the document
 * stays a fraction of its inline size. Names come from a schema's title, else from where it was
 * first met (`createApplication.response.201.healthchecks`).
 */
function shareRepeatedSchemas(paths: Record<string, Record<string, any>>, components: Record<string, unknown>): void {
  const counts = new Map<string, number>();
  const count = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(count);
    const key = JSON.stringify(node);
    if (key.length >= MIN_SHARED_SIZE && (node as { type?: unknown }).type === 'object') counts.set(key, (counts.get(key) ?? 0) + 1);
    Object.values(node).forEach(count);
  };
  const names = new Map<string, string>();
  const used = new Set(Object.keys(components));
  const intern = (node: unknown, hint: string): unknown => {
    if (!node || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map((n, i) => intern(n, `${hint}.${i}`));
    const key = JSON.stringify(node);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = intern(v, k === 'properties' || k === 'items' || k === 'anyOf' ? hint : `${hint}.${k}`);
    if ((counts.get(key) ?? 0) < 2) return out;
    let name = names.get(key);
    if (!name) {
      const base = String((node as { title?: unknown }).title ?? hint).replace(/[^A-Za-z0-9_.-]/g, '_');
      name = base;
      for (let i = 2; used.has(name); i++) name = `${base}_${i}`;
      used.add(name);
      names.set(key, name);
      components[name] = out;
    }
    return { $ref: `#/components/schemas/${name}` };
  };
  const each = (fn: (schemaHolder: { schema: unknown }, hint: string) => void) => {
    for (const ops of Object.values(paths)) {
      for (const op of Object.values(ops)) {
        const id = op.operationId ?? 'operation';
        const body = op.requestBody?.content?.['application/json'];
        if (body) fn(body, `${id}.request`);
        for (const [status, res] of Object.entries<any>(op.responses ?? {})) {
          const json = res.content?.['application/json'];
          if (json && !json.schema?.$ref) fn(json, `${id}.response.${status}`);
        }
      }
    }
  };
  each((holder) => count(holder.schema));
  each((holder, hint) => { holder.schema = intern(holder.schema, hint); });
}

/** `listProjectDeploymentRules` → `List project deployment rules` (operations without a summary of their own) */
function summaryFromOperationId(id: string | undefined): string | undefined {
  if (!id) return undefined;
  const words = id.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function createOpenApiCollector(info: { version: string; publicUrl: string }) {
  const operations: Array<{ method: string; url: string; schema: RouteSchema; isPublic: boolean; bodyOptional: boolean }> = [];
  let cached: object | undefined;

  return {
    onRoute(route: RouteOptions): void {
      const url = route.url;
      const config = (route.config ?? {}) as { hidden?: boolean; public?: boolean };
      if (config.hidden || url.startsWith('/api/v1')) return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        if (method === 'HEAD' || method === 'OPTIONS') continue;
        const hooks = [route.preValidation ?? []].flat();
        const bodyOptional = hooks.includes(optionalBody as never);
        operations.push({ method: method.toLowerCase(), url, schema: (route.schema ?? {}) as RouteSchema, isPublic: config.public === true, bodyOptional });
      }
      cached = undefined;
    },
    document(): object {
      if (cached) return cached;
      const paths: Record<string, Record<string, unknown>> = {};
      for (const op of operations) {
        const path = op.url.replace(/:(\w+)/g, '{$1}');
        const parameters = [
          ...Object.entries(op.schema.params?.properties ?? {}).map(([name, schema]) => ({ name, in: 'path', required: true, schema })),
          ...Object.entries(op.schema.querystring?.properties ?? {}).map(([name, schema]) => ({
            name, in: 'query', required: op.schema.querystring?.required?.includes(name) ?? false, schema,
          })),
        ];
        const responses: Record<string, unknown> = {};
        for (const [status, schema] of Object.entries(op.schema.response ?? {})) {
          const s = schema as { description?: string; 'x-content-type'?: string };
          responses[status] = status === '204'
            ? { description: 'Success, no body' }
            : s['x-content-type'] // e.g. text/event-stream: the schema only describes the stream
              ? { description: s.description ?? 'Success', content: { [s['x-content-type']]: { schema: { type: 'string' } } } }
              : { description: s.description ?? 'Success', content: { 'application/json': { schema } } };
        }
        const errors = op.isPublic ? ['500'] : ['401', '403', '404', '429', '500'];
        if (op.schema.body || op.method === 'post' || op.method === 'put') errors.push('400', '409', '413');
        if (op.schema.params || op.schema.querystring) errors.push('400');
        for (const status of [...new Set(errors)].sort()) {
          responses[status] ??= { description: ERROR_DESCRIPTIONS[status], content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
        }
        (paths[path] ??= {})[op.method] = {
          operationId: op.schema.operationId,
          tags: op.schema.tags,
          summary: op.schema.summary ?? summaryFromOperationId(op.schema.operationId),
          description: op.schema.description,
          ...(op.isPublic ? { security: [] } : {}),
          parameters: parameters.length ? parameters : undefined,
          requestBody: op.schema.body ? {
            required: !op.bodyOptional,
            content: { 'application/json': { schema: op.schema.body, example: requestExample(op.schema.operationId, op.schema.body) } },
          } : undefined,
          responses,
        };
      }
      const schemas: Record<string, unknown> = { Error: ErrorBody };
      shareRepeatedSchemas(paths, schemas);
      cached = {
        openapi: '3.1.0',
        info: {
          title: 'berth API',
          version: info.version,
          license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
          description: [
            'Control plane for cloud application infrastructure. Every path is also served under /api/v1.',
            'Authenticate with `Authorization: Token <API_TOKEN>` or `Authorization: Bearer <JWT>`. Errors are `{status, error, message, code, request_id}` (validation errors add `errors`).',
            '## Roles\n\nEach member and API token has one role in its organization. What each role may do (the table the services enforce):',
            roleTableMarkdown(),
          ].join('\n\n'),
        },
        servers: [{ url: info.publicUrl }],
        tags: [...new Set(operations.flatMap((o) => o.schema.tags ?? []))].sort().map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
        security: [{ bearerAuth: [] }, { ApiKeyAuth: [] }],
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'OIDC access token (Authorization: Bearer <ACCESS_TOKEN>)' },
            ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'API token (Authorization: Token <API_TOKEN>)' },
          },
          schemas,
        },
        paths,
      };
      return cached;
    },
  };
}
