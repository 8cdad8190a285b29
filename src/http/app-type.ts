// The type of the Fastify application every routes file registers on (TypeBox type provider),
// and berth's additions to Fastify's types (the request's principal, the draining flag, route
// config). A leaf: app.ts builds the application, the routes files only need its type, so they
// import it from here rather than from app.ts (which imports every routes file).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Principal } from '../modules/access/principal.ts';

declare module 'fastify' {
  interface FastifyInstance { draining: boolean }
  interface FastifyRequest { principal: Principal }
  /** runCredentials: the route accepts a workflow run's credential (berth's MCP server only, decision 0197) */
  interface FastifyContextConfig { public?: boolean; hidden?: boolean; runCredentials?: boolean }
}

export type App = FastifyInstance<any, any, any, any, TypeBoxTypeProvider>;
