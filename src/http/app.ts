// The Fastify application: validation (strict bodies, coerced query and path), authentication,
// rate limiting, idempotency, error bodies, the OpenAPI document, health probes, and every
// module's routes served both at their seed path and under /api/v1 (a URL rewrite before
// routing: the routes, their compiled validators and serializers exist once).
import Fastify, { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from './app-type.ts';
import { compileOnFirstUse, serializeOnFirstUse } from './lazy-compile.ts';
import { makeAjv } from './ajv.ts';
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { appliedVersion, latestVersion } from '../db/migrate.ts';
import { AppError, unavailable } from '../lib/errors.ts';
import type { RateDecision } from './rate-limit.ts';
import { registerModuleRoutes } from '../modules/index.ts';
import { registerMcpRoutes } from '../mcp/route.ts';
import { installErrorHandling } from './errors.ts';
import { installIdempotency } from './idempotency.ts';
import { installIgnoredFieldsHeader } from './ignored-fields.ts';
import { installLocationHeaders } from './location.ts';
import { installAuditLog } from '../modules/audit/audit.hook.ts';
import { installMetrics } from './metrics.ts';
import { collectDeploymentMetrics } from '../modules/deployments/deployments.metrics.ts';
import { installOversizedBodyHandling } from './oversized-bodies.ts';
import { createOpenApiCollector } from './openapi.ts';
import { registerDocs } from './docs.ts';
import { consoleConfigRoute, consoleOidc, consoleRoutes } from './console.ts';
import { logRequest } from './request-log.ts';
import { requestLogger } from './request-logger.ts';
import { routeHooks } from './route-hooks.ts';

/** JSON bodies; a NUL character (which PostgreSQL text cannot hold) is refused with 400 */
function parseJsonBody(_req: FastifyRequest, body: string, done: (err: Error | null, value?: unknown) => void): void {
  if (body === '') {
    // no body at all, whatever the content type: a route that needs one says so in validation
    done(null, undefined);
    return;
  }
  let value: unknown;
  try {
    value = /\\u0000/i.test(body)
      ? JSON.parse(body, (key, v) => {
        if ((typeof v === 'string' && v.includes('\u0000')) || key.includes('\u0000')) throw new AppError(400, 'validation_error', 'Strings must not contain NUL characters');
        return v;
      })
      : JSON.parse(body);
  } catch (err) {
    done(err instanceof AppError ? err : Object.assign(new Error('The request body is not valid JSON'), { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' }));
    return;
  }
  done(null, value);
}

const API_PREFIX = '/api/v1';

/** `/api/v1/x` → `/x`: the alias costs one string check per request instead of a second copy of
 * every route (half the routes: less memory and a shorter start, docs/performance.md) */
export function stripApiPrefix(url: string): string {
  if (!url.startsWith(API_PREFIX)) return url;
  const rest = url.slice(API_PREFIX.length);
  if (rest === '') return '/';
  return rest[0] === '/' || rest[0] === '?' ? (rest[0] === '?' ? '/' + rest : rest) : url;
}

export async function buildApp(ctx: AppContext): Promise<App> {
  const app = Fastify({
    loggerInstance: ctx.logger as unknown as FastifyBaseLogger,
    childLoggerFactory: requestLogger,
    bodyLimit: ctx.config.bodyLimitBytes,
    trustProxy: ctx.config.trustProxy,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    // one line per request from the onResponse hook below (debug, or warn for errors and slow ones)
    logController: new LogController({ disableRequestLogging: true }),
    rewriteUrl: (req) => stripApiPrefix(req.url ?? '/'),
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onResponse', logRequest);
  // Expect: 100-continue answered by the route's body limit, and a body still arriving after the
  // answer read (bounded) before the connection closes, so clients read their 413 (decision 0409)
  installOversizedBodyHandling(app);

  // JSON only: a text/plain body would otherwise reach validation as a string
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
  // clients (the Qovery SDK among them) send bodiless actions as form-urlencoded with no bytes:
  // an absent body is accepted whatever its content type, a present non-JSON body is a 415
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body: Buffer, done) => {
    if (body.length === 0) done(null, undefined);
    else done(Object.assign(new Error('Unsupported Content-Type'), { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }));
  });
  const bodyAjv = makeAjv(false);
  const otherAjv = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) => compileOnFirstUse(() => (httpPart === 'body' ? bodyAjv : otherAjv).compile(schema)));
  app.setSerializerCompiler(({ schema }) => serializeOnFirstUse(schema));

  const openapi = createOpenApiCollector({ version: ctx.version, publicUrl: ctx.config.publicUrl });
  const patterns: Array<{ method: string; regex: RegExp }> = [];
  app.addHook('onRoute', (route) => {
    openapi.onRoute(route);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const regex = new RegExp('^' + route.url.replace(/:\w+/g, '[^/]+').replace(/\*/g, '.*') + '/?$');
    for (const m of methods) if (m !== 'HEAD') patterns.push({ method: m, regex });
  });
  installErrorHandling(app, () => patterns);

  app.decorateRequest('principal', null as never);
  app.decorateRequest('auditCreation', undefined);
  // set when shutdown begins: readiness goes red and every response closes its connection, so
  // clients move to another process before this one stops accepting
  app.decorate('draining', false);
  /** the rate-limit headers, and the 429 when the budget is spent */
  function applyRateDecision(reply: FastifyReply, decision: RateDecision): AppError | undefined {
    reply.header('x-ratelimit-limit', decision.limit);
    reply.header('x-ratelimit-remaining', decision.remaining);
    reply.header('x-ratelimit-reset', decision.reset);
    if (decision.allowed) return undefined;
    reply.header('retry-after', decision.retryAfter);
    return new AppError(429, 'rate_limited', `Rate limit of ${decision.limit} requests per hour exceeded; retry after ${decision.retryAfter} s`);
  }
  // a callback hook: a caller seen in the last seconds, counted in this process, is let through
  // with no promise at all; otherwise authentication (and the shared counter) are awaited
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    reply.header('x-request-id', request.id);
    if (app.draining) reply.header('connection', 'close');
    if (request.routeOptions.config?.public || request.is404) return done();
    const known = ctx.services.identity.cached(request.headers.authorization, request.raw.socket);
    const decision = known && ctx.rateLimiter.hitNow(known.key);
    if (known && decision) {
      request.principal = known;
      return done(applyRateDecision(reply, decision));
    }
    (async () => {
      request.principal = await ctx.services.identity.authenticate(request.headers.authorization);
      if (request.principal.kind === 'token' && request.principal.runScope && !request.routeOptions.config?.runCredentials) {
        return new AppError(403, 'forbidden', 'A workflow run\'s credential works only at berth\'s MCP server (/mcp)');
      }
      return applyRateDecision(reply, await ctx.rateLimiter.hit(request.principal.key));
    })().then((err) => done(err), (err: Error) => done(err));
  });
  const hooks = routeHooks(app);
  installIdempotency(hooks, ctx.db);
  installIgnoredFieldsHeader(hooks);
  installLocationHeaders(hooks, () => patterns);
  installAuditLog(hooks, ctx.db);
  installMetrics(app, ctx, hooks, [() => collectDeploymentMetrics(ctx)]);

  // the operational routes (like every other path) also answer under /api/v1 through the URL rewrite
  app.get('/healthz', { config: { public: true, hidden: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { public: true, hidden: true } }, async () => {
    if (app.draining) throw unavailable('Shutting down');
    let version: string | null;
    try {
      version = await appliedVersion(ctx.db);
    } catch {
      throw unavailable('The database is unreachable');
    }
    if (version === null || version < latestVersion()) throw unavailable('Database migrations are not applied');
    return { status: 'ready', migration: version };
  });
  app.get('/openapi.json', { config: { public: true, hidden: true } }, async () => openapi.document());
  registerDocs(app, '');

  await app.register(async (scope) => registerModuleRoutes(scope as App, ctx));
  await app.register(async (scope) => registerMcpRoutes(scope as App, ctx));
  await app.register(async (scope) => consoleConfigRoute(scope as App, ctx));
  // last and narrow: `/`, `/ui/…` and `/assets/…` only
  const oidc = consoleOidc(ctx.config);
  await app.register(async (scope) => consoleRoutes(scope as App, { connect: oidc ? [new URL(oidc.issuer).origin] : [] }));
  return app;
}
