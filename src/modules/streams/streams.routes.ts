// HTTP routes of the live streams (server-sent events; the design is docs/decisions/0500).
// Every route is written with its public path and operationId; the four service types' log
// streams share one function (serviceLogStream) for their schema and handler.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { idParams } from '../../http/schemas.ts';

const CursorQuery = {
  cursor: Type.Optional(Type.String({ description: 'resume strictly after this event id (the Last-Event-ID header wins)' })),
};

/** documents a text/event-stream answer (src/http/openapi.ts reads `x-content-type`) */
function eventStream(description: string) {
  return Type.String({ description, 'x-content-type': 'text/event-stream' });
}

/** a service type as its routes see it: the path parameter of its id, services.type, 404 label, OpenAPI tag */
interface Family { param: string; type: string; label: string; tag: string }

const APPLICATION: Family = { param: 'applicationId', type: 'APPLICATION', label: 'Application', tag: 'Applications' };
const CONTAINER: Family = { param: 'containerId', type: 'CONTAINER', label: 'Container', tag: 'Containers' };
const DATABASE: Family = { param: 'databaseId', type: 'DATABASE', label: 'Database', tag: 'Databases' };
const JOB: Family = { param: 'jobId', type: 'JOB', label: 'Job', tag: 'Jobs' };

export function streamRoutes(app: App, ctx: AppContext): void {
  const streams = ctx.services.streams;
  app.addHook('preClose', async () => streams.close());

  /** GET /<type>/{id}/log/stream: the service's lines, the last N first, then live */
  const serviceLogStream = (f: Family, operationId: string) => ({
    schema: {
      tags: [f.tag], operationId,
      summary: `Follow the ${f.label.toLowerCase()}'s build, deployment and runtime lines: the last N first, then live`,
      params: idParams(f.param),
      querystring: Type.Object({ ...CursorQuery, tail: Type.Optional(Type.Integer({ description: 'lines from before the stream, 0 to 10000 (default 100)' })) }),
      response: { 200: eventStream('server-sent events: log; `: keep-alive` every 15 s') },
    },
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      const q = req.query as { cursor?: string; tail?: number };
      await streams.serviceLog({ principal: req.principal, headers: req.headers, cursor: q.cursor, reply }, (req.params as Record<string, string>)[f.param]!, f.type, f.label, q.tail);
      return reply;
    },
  });

  app.get('/deployment/:deploymentId/log/stream', {
    schema: {
      tags: ['Deployments'], operationId: 'streamDeploymentLog',
      summary: 'Follow a deployment: its log lines (event: log), status changes (event: status), then event: end with the final record',
      params: idParams('deploymentId'), querystring: Type.Object(CursorQuery),
      response: { 200: eventStream('server-sent events: log, status, end; `: keep-alive` every 15 s') },
    },
  }, async (req, reply) => {
    await streams.deploymentLog({ principal: req.principal, headers: req.headers, cursor: (req.query as { cursor?: string }).cursor, reply }, req.params.deploymentId);
    return reply;
  });

  app.get('/application/:applicationId/log/stream', serviceLogStream(APPLICATION, 'streamApplicationLog'));
  app.get('/container/:containerId/log/stream', serviceLogStream(CONTAINER, 'streamContainerLog'));
  app.get('/database/:databaseId/log/stream', serviceLogStream(DATABASE, 'streamDatabaseLog'));
  app.get('/job/:jobId/log/stream', serviceLogStream(JOB, 'streamJobLog'));

  app.get('/environment/:environmentId/status/stream', {
    schema: {
      tags: ['Environments'], operationId: 'streamEnvironmentStatus',
      summary: "Follow the states of the environment's services: one event per service, then one per change",
      params: idParams('environmentId'), querystring: Type.Object(CursorQuery),
      response: { 200: eventStream('server-sent events: status; `: keep-alive` every 15 s') },
    },
  }, async (req, reply) => {
    await streams.environmentStatus({ principal: req.principal, headers: req.headers, cursor: (req.query as { cursor?: string }).cursor, reply }, req.params.environmentId);
    return reply;
  });
}
