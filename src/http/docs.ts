// The API reference at /docs (and /docs/, and under /api/v1): Swagger UI from the
// `swagger-ui-dist` npm package, served by berth itself (no CDN), reading /openapi.json. The
// page, its script and its styles all come from this origin, and the Content-Security-Policy
// allows nothing else (images also as data: URIs, which Swagger UI's icons use).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

const DOCS_CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const ASSETS: Record<string, { file: string; type: string }> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  'favicon-32x32.png': { file: 'favicon-32x32.png', type: 'image/png' },
};

const loaded = new Map<string, Buffer>();
function asset(name: string): Buffer {
  let body = loaded.get(name);
  if (!body) {
    body = readFileSync(join(dist, ASSETS[name]!.file));
    loaded.set(name, body);
  }
  return body;
}

function page(prefix: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>berth API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="${prefix}/docs/favicon-32x32.png"><link rel="stylesheet" href="${prefix}/docs/swagger-ui.css"></head>
<body><div id="reference" data-spec="${prefix}/openapi.json"></div>
<script src="${prefix}/docs/swagger-ui-bundle.js"></script><script src="${prefix}/docs/init.js"></script></body></html>`;
}

// no inline script (the CSP forbids it): the initialiser is its own file
const INIT = `window.ui = SwaggerUIBundle({
  url: document.getElementById('reference').dataset.spec, dom_id: '#reference', deepLinking: true,
  docExpansion: 'none', defaultModelsExpandDepth: 0, displayOperationId: true, filter: true, tryItOutEnabled: false,
});
`;

function send(reply: FastifyReply, type: string, body: string | Buffer) {
  return reply.header('content-security-policy', DOCS_CSP).header('x-content-type-options', 'nosniff')
    .header('cache-control', 'public, max-age=3600').type(type).send(body);
}

/** registers the reference under `prefix` ('' or '/api/v1') */
export function registerDocs(app: FastifyInstance, prefix: string): void {
  const config = { public: true, hidden: true };
  app.get(`${prefix}/docs`, { config }, async (_req, reply) => send(reply, 'text/html; charset=utf-8', page(prefix)));
  app.get(`${prefix}/docs/init.js`, { config }, async (_req, reply) => send(reply, 'text/javascript; charset=utf-8', INIT));
  for (const [name, a] of Object.entries(ASSETS)) {
    app.get(`${prefix}/docs/${name}`, { config }, async (_req, reply) => send(reply, a.type, asset(name)));
  }
}
