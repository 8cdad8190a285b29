// The web console, served by berth itself: the built single-page app from console/dist at `/`
// and under `/ui/…` (client-side routes, all answered with index.html), its hashed assets under
// `/assets/…`, and the public `GET /console/config` the console reads before sign-in. Only
// these paths are claimed, so every API path (and its JSON 404) is untouched. Console pages
// carry a strict Content-Security-Policy: scripts, styles and data only from berth itself.
import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError } from '../lib/errors.ts';
import type { App } from './app-type.ts';

const CONSOLE_DIST = new URL('../../console/dist/', import.meta.url).pathname;

/** the console's Content-Security-Policy; `connect` adds origins the page may call (the OIDC provider) */
export function consoleCsp(connect: string[] = []): string {
  return [
    "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "font-src 'self'",
    ["connect-src 'self'", ...connect].join(' '), "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
  ].join('; ');
}

export interface ConsoleOidc { issuer: string; client_id: string; audience: string | null }

/** what the console needs to sign in through OIDC, when berth is configured for it */
export function consoleOidc(config: AppContext['config']): ConsoleOidc | null {
  if (!config.oidcIssuer || !config.oidcClientId) return null;
  return { issuer: config.oidcIssuer, client_id: config.oidcClientId, audience: config.oidcAudience ?? null };
}

const ConsoleConfig = Type.Object({
  version: Type.String({ description: 'the berth version serving this console' }),
  engine: Type.String({ description: 'the deployment engine in use: docker or simulated (ENGINE=auto resolves to one of them at start)' }),
  public_url: Type.String({ description: 'PUBLIC_URL: base of the addresses the API hands out' }),
  oidc: Type.Union([
    Type.Object({
      issuer: Type.String({ description: 'OIDC_ISSUER' }),
      client_id: Type.String({ description: "OIDC_CLIENT_ID: the console's public client (authorization code + PKCE)" }),
      audience: Type.Union([Type.String(), Type.Null()], { description: 'OIDC_AUDIENCE, asked for as the access token audience' }),
    }),
    Type.Null(),
  ], { description: 'null when sign-in through OIDC is not configured (OIDC_ISSUER and OIDC_CLIENT_ID)' }),
}, { additionalProperties: false });

function secureHeaders(reply: FastifyReply, csp: string): void {
  reply.header('content-security-policy', csp);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-frame-options', 'DENY');
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>berth console not built</title></head>
<body><h1>The berth console is not built</h1>
<p>The API is running (see <a href="/docs">/docs</a>), but the web console's files are missing from <code>console/dist</code>.</p>
<p>Build them with <code>npm run build:console</code> (<code>npm install</code> does it too), then reload this page.</p></body></html>`;

/** the public configuration route; registered at the root and under /api/v1 */
export function consoleConfigRoute(app: App, ctx: AppContext): void {
  app.get('/console/config', {
    config: { public: true },
    schema: {
      tags: ['Console'], operationId: 'getConsoleConfig',
      summary: 'What the web console needs before sign-in (public; holds no secret)',
      response: { 200: ConsoleConfig },
    },
  }, async () => ({ version: ctx.version, engine: ctx.engine.name, public_url: ctx.config.publicUrl, oidc: consoleOidc(ctx.config) }));
}

/** the console's own pages and assets; registered once, at the root, after the API */
export async function consoleRoutes(app: App, options: { dist?: string; connect?: string[] } = {}): Promise<void> {
  const dist = options.dist ?? CONSOLE_DIST;
  const csp = consoleCsp(options.connect);
  await app.register(fastifyStatic, { root: dist, serve: false });
  const page = (_req: unknown, reply: FastifyReply) => {
    secureHeaders(reply, csp);
    reply.header('cache-control', 'no-cache');
    if (!existsSync(join(dist, 'index.html'))) return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT);
    return reply.sendFile('index.html', { cacheControl: false });
  };
  const hidden = { config: { public: true, hidden: true } };
  app.get('/', hidden, page);
  app.get('/ui', hidden, page);
  app.get('/ui/*', hidden, page);
  const assets = resolve(dist, 'assets') + sep;
  app.get('/assets/*', hidden, (req, reply) => {
    const file = resolve(assets, (req.params as { '*': string })['*']);
    if (!file.startsWith(assets) || !existsSync(file)) throw new AppError(404, 'not_found', `No route for GET ${req.url.split('?')[0]}`);
    secureHeaders(reply, csp);
    // file names carry a content hash, so they never change
    reply.header('cache-control', 'public, max-age=31536000, immutable');
    return reply.sendFile(file.slice(resolve(dist).length + 1), { cacheControl: false });
  });
}
