// HTTP routes of the live streams (server-sent events; the design is docs/decisions/0500).
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app.ts';
import { idParams } from '../../http/schemas.ts';
import { streamsFor } from './streams.service.ts';

const CursorQuery = {
  cursor: Type.Optional(Type.String({ description: 'resume strictly after this event id (the Last-Event-ID header wins)' })),
};

/** documents a text/event-stream answer (src/http/openapi.ts reads `x-content-type`) */
function eventStream(description: string) {
  return Type.String({ description, 'x-content-type': 'text/event-stream' });
}

const FAMILIES = [
  { path: 'application', type: 'APPLICATION', label: 'Application', op: 'Application', tag: 'Applications' },
  { path: 'container', type: 'CONTAINER', label: 'Container', op: 'Container', tag: 'Containers' },
  { path: 'database', type: 'DATABASE', label: 'Database', op: 'Database', tag: 'Databases' },
  { path: 'job', type: 'JOB', label: 'Job', op: 'Job', tag: 'Jobs' },
] as const;

export function streamRoutes(app: App, ctx: AppContext): void {
  const streams = streamsFor(ctx);
  app.addHook('preClose', async () => streams.close());

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

  for (const f of FAMILIES) {
    const param = `${f.path}Id`;
    app.get(`/${f.path}/:${param}/log/stream`, {
      schema: {
        tags: [f.tag], operationId: `stream${f.op}Log`,
        summary: `Follow the ${f.label.toLowerCase()}'s build, deployment and runtime lines: the last N first, then live`,
        params: idParams(param),
        querystring: Type.Object({ ...CursorQuery, tail: Type.Optional(Type.Integer({ description: 'lines from before the stream, 0 to 10000 (default 100)' })) }),
        response: { 200: eventStream('server-sent events: log; `: keep-alive` every 15 s') },
      },
    }, async (req, reply) => {
      const q = req.query as { cursor?: string; tail?: number };
      await streams.serviceLog({ principal: req.principal, headers: req.headers, cursor: q.cursor, reply }, (req.params as Record<string, string>)[param]!, f.type, f.label, q.tail);
      return reply;
    });
  }

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
