// The OpenAPI 3.1 document, generated from the routes' own TypeBox schemas as they are
// registered (never restated by hand), with both security schemes and the error responses of
// every operation. Served at /openapi.json; /docs renders it as a plain reference page.
import type { RouteOptions } from 'fastify';
import { ErrorBody } from './schemas.ts';

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

export function createOpenApiCollector(info: { version: string; publicUrl: string }) {
  const operations: Array<{ method: string; url: string; schema: RouteSchema; isPublic: boolean }> = [];
  let cached: object | undefined;

  return {
    onRoute(route: RouteOptions): void {
      const url = route.url;
      const config = (route.config ?? {}) as { hidden?: boolean; public?: boolean };
      if (config.hidden || url.startsWith('/api/v1')) return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        if (method === 'HEAD' || method === 'OPTIONS') continue;
        operations.push({ method: method.toLowerCase(), url, schema: (route.schema ?? {}) as RouteSchema, isPublic: config.public === true });
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
          summary: op.schema.summary,
          description: op.schema.description,
          ...(op.isPublic ? { security: [] } : {}),
          parameters: parameters.length ? parameters : undefined,
          requestBody: op.schema.body ? { required: true, content: { 'application/json': { schema: op.schema.body } } } : undefined,
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
          description: 'Control plane for cloud application infrastructure. Every path is also served under /api/v1.',
        },
        servers: [{ url: info.publicUrl }],
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

export function docsPage(): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>berth API reference</title>
<style>body{font:14px/1.5 system-ui,sans-serif;max-width:980px;margin:2em auto;padding:0 1em}
code{background:#f3f3f3;padding:1px 4px}h2{margin-top:2em;border-bottom:1px solid #ddd}
.op{margin:.3em 0}.m{display:inline-block;width:5em;font-weight:bold}pre{background:#f7f7f7;padding:.5em;overflow:auto;max-height:24em}</style>
</head><body><h1>berth API reference</h1><p>The machine-readable document is at <a href="openapi.json"><code>/openapi.json</code></a>.
Authenticate with <code>Authorization: Token &lt;API_TOKEN&gt;</code> or <code>Authorization: Bearer &lt;JWT&gt;</code>.</p>
<div id="ops">Loading…</div><script>
fetch('openapi.json').then(r=>r.json()).then(doc=>{const byTag={};
for(const [p,ms] of Object.entries(doc.paths))for(const [m,op] of Object.entries(ms)){const t=(op.tags||['Other'])[0];(byTag[t]=byTag[t]||[]).push([m,p,op])}
const el=document.getElementById('ops');el.textContent='';
for(const t of Object.keys(byTag).sort()){const h=document.createElement('h2');h.textContent=t;el.append(h);
for(const [m,p,op] of byTag[t]){const d=document.createElement('details');d.className='op';const s=document.createElement('summary');
s.innerHTML='<span class="m">'+m.toUpperCase()+'</span><code></code> ';s.querySelector('code').textContent=p;s.append(op.summary||op.operationId||'');d.append(s);
const pre=document.createElement('pre');pre.textContent=JSON.stringify({parameters:op.parameters,requestBody:op.requestBody,responses:op.responses},null,2);d.append(pre);el.append(d)}}});
</script></body></html>`;
}
