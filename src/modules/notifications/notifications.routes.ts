// HTTP routes of an organization's notification channels: CRUD and "send a test" (answered 200
// with the outcome: `delivered`, or the receiver's status / the SMTP error as `reason`).
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, PageQuery, idParams, optionalBody } from '../../http/schemas.ts';
import { EmptyRequest } from '../deployments/deployments.schemas.ts';
import {
  NotificationChannel, NotificationChannelCreateRequest, NotificationChannelEditRequest, NotificationChannelList, NotificationChannelTestResult,
} from './notifications.schemas.ts';

const tags = ['Organization Notification Channels'];

export function notificationRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.notifications;
  const orgParams = idParams('organizationId');
  const channelParams = idParams('organizationId', 'channelId');

  app.get('/organization/:organizationId/notificationChannel', {
    schema: { tags, operationId: 'listNotificationChannels', summary: 'List notification channels (every member; the webhook URL is never returned, its host is)', params: orgParams, querystring: PageQuery, response: { 200: NotificationChannelList } },
  }, async (req) => svc.list(req.principal, req.params.organizationId, pageRequest(req.query, 'configuration')));

  app.post('/organization/:organizationId/notificationChannel', {
    schema: { tags, operationId: 'createNotificationChannel', summary: 'Create a notification channel (Slack, Discord or e-mail)', params: orgParams, body: NotificationChannelCreateRequest, response: { 201: NotificationChannel } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.params.organizationId, req.body)));

  app.get('/organization/:organizationId/notificationChannel/:channelId', {
    schema: { tags, operationId: 'getNotificationChannel', summary: 'Get a notification channel', params: channelParams, response: { 200: NotificationChannel } },
  }, async (req) => svc.get(req.principal, req.params.organizationId, req.params.channelId));

  app.put('/organization/:organizationId/notificationChannel/:channelId', {
    schema: { tags, operationId: 'editNotificationChannel', summary: 'Edit a notification channel (members omitted keep their value)', params: channelParams, body: NotificationChannelEditRequest, response: { 200: NotificationChannel } },
  }, async (req) => svc.update(req.principal, req.params.organizationId, req.params.channelId, req.body));

  app.delete('/organization/:organizationId/notificationChannel/:channelId', {
    schema: { tags, operationId: 'deleteNotificationChannel', summary: 'Delete a notification channel', params: channelParams, response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, req.params.organizationId, req.params.channelId);
    return reply.code(204).send(null);
  });

  app.post('/organization/:organizationId/notificationChannel/:channelId/test', {
    preValidation: optionalBody,
    schema: {
      tags, operationId: 'testNotificationChannel',
      summary: 'Send a test message now; 200 with delivered true, or false and the reason (the receiver\'s status and answer, or the SMTP error)',
      params: channelParams, body: EmptyRequest, response: { 200: NotificationChannelTestResult },
    },
  }, async (req) => svc.test(req.principal, req.params.organizationId, req.params.channelId));
}
