// HTTP routes of custom domains, as Qovery's SDK calls them for applications and containers
// (ApplicationCustomDomainApi, ContainerCustomDomainApi), plus the ACME HTTP-01 answers the
// ingress forwards from the CA (public: the CA cannot authenticate).
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { idParams } from '../../http/schemas.ts';
import { CheckedCustomDomains, CustomDomain, CustomDomainList, CustomDomainRequest } from './domains.schemas.ts';

const tags = ['Custom Domains'];
const Deleted = { 204: Type.Null({ description: 'Custom domain deleted (its route and certificate leave the ingress)' }) };

export function domainRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.domains;
  const AppParams = idParams('applicationId');
  const AppDomainParams = idParams('applicationId', 'customDomainId');
  const ContainerParams = idParams('containerId');
  const ContainerDomainParams = idParams('containerId', 'customDomainId');

  app.get('/application/:applicationId/customDomain', {
    schema: { tags, operationId: 'listApplicationCustomDomain', params: AppParams, response: { 200: CustomDomainList } },
  }, async (req) => svc.list(req.principal, 'APPLICATION', req.params.applicationId));
  app.post('/application/:applicationId/customDomain', {
    schema: { tags, operationId: 'createApplicationCustomDomain', params: AppParams, body: CustomDomainRequest, response: { 201: CustomDomain } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, 'APPLICATION', req.params.applicationId, req.body)));
  app.get('/application/:applicationId/customDomain/:customDomainId', {
    schema: { tags, operationId: 'getApplicationCustomDomain', params: AppDomainParams, response: { 200: CustomDomain } },
  }, async (req) => svc.get(req.principal, 'APPLICATION', req.params.applicationId, req.params.customDomainId));
  app.put('/application/:applicationId/customDomain/:customDomainId', {
    schema: { tags, operationId: 'editCustomDomain', params: AppDomainParams, body: CustomDomainRequest, response: { 200: CustomDomain } },
  }, async (req) => svc.edit(req.principal, 'APPLICATION', req.params.applicationId, req.params.customDomainId, req.body));
  app.delete('/application/:applicationId/customDomain/:customDomainId', {
    schema: { tags, operationId: 'deleteCustomDomain', params: AppDomainParams, response: Deleted },
  }, async (req, reply) => { await svc.remove(req.principal, 'APPLICATION', req.params.applicationId, req.params.customDomainId); return reply.code(204).send(null); });
  app.get('/application/:applicationId/customDomain/:customDomainId/status', {
    schema: { tags, operationId: 'getCustomDomainStatus', params: AppDomainParams, response: { 200: CustomDomain } },
  }, async (req) => svc.get(req.principal, 'APPLICATION', req.params.applicationId, req.params.customDomainId));
  app.get('/application/:applicationId/checkCustomDomain', {
    schema: { tags, operationId: 'checkApplicationCustomDomain', summary: 'Check every custom domain of the application against DNS now', params: AppParams, response: { 200: CheckedCustomDomains } },
  }, async (req) => svc.check(req.principal, 'APPLICATION', req.params.applicationId));

  app.get('/container/:containerId/customDomain', {
    schema: { tags, operationId: 'listContainerCustomDomain', params: ContainerParams, response: { 200: CustomDomainList } },
  }, async (req) => svc.list(req.principal, 'CONTAINER', req.params.containerId));
  app.post('/container/:containerId/customDomain', {
    schema: { tags, operationId: 'createContainerCustomDomain', params: ContainerParams, body: CustomDomainRequest, response: { 201: CustomDomain } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, 'CONTAINER', req.params.containerId, req.body)));
  app.get('/container/:containerId/customDomain/:customDomainId', {
    schema: { tags, operationId: 'getContainerCustomDomain', params: ContainerDomainParams, response: { 200: CustomDomain } },
  }, async (req) => svc.get(req.principal, 'CONTAINER', req.params.containerId, req.params.customDomainId));
  app.put('/container/:containerId/customDomain/:customDomainId', {
    schema: { tags, operationId: 'editContainerCustomDomain', params: ContainerDomainParams, body: CustomDomainRequest, response: { 200: CustomDomain } },
  }, async (req) => svc.edit(req.principal, 'CONTAINER', req.params.containerId, req.params.customDomainId, req.body));
  app.delete('/container/:containerId/customDomain/:customDomainId', {
    schema: { tags, operationId: 'deleteContainerCustomDomain', params: ContainerDomainParams, response: Deleted },
  }, async (req, reply) => { await svc.remove(req.principal, 'CONTAINER', req.params.containerId, req.params.customDomainId); return reply.code(204).send(null); });
  app.get('/container/:containerId/customDomain/:customDomainId/status', {
    schema: { tags, operationId: 'getContainerCustomDomainStatus', params: ContainerDomainParams, response: { 200: CustomDomain } },
  }, async (req) => svc.get(req.principal, 'CONTAINER', req.params.containerId, req.params.customDomainId));
  app.get('/container/:containerId/checkCustomDomain', {
    schema: { tags, operationId: 'checkContainerCustomDomain', summary: 'Check every custom domain of the container against DNS now', params: ContainerParams, response: { 200: CheckedCustomDomains } },
  }, async (req) => svc.check(req.principal, 'CONTAINER', req.params.containerId));

  app.get('/.well-known/acme-challenge/:token', {
    config: { public: true },
    schema: { tags, operationId: 'answerAcmeChallenge', summary: "The ACME CA's HTTP-01 challenge for a domain berth orders a certificate for (the ingress forwards it)", params: Type.Object({ token: Type.String({ pattern: '^[A-Za-z0-9_-]{1,256}$' }) }), response: { 200: Type.String(), 404: Type.String() } },
  }, async (req, reply) => {
    const answer = await svc.challengeAnswer(req.params.token);
    return reply.code(answer === null ? 404 : 200).type('text/plain').send(answer ?? 'no such challenge\n');
  });
}
