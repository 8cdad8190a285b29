// HTTP routes of clusters.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, NamedPageQuery, idParams } from '../../http/schemas.ts';
import { ClusterAdvancedSettings, ClusterAdvancedSettingsPatch } from './cluster-settings.ts';
import { Cluster, ClusterList, ClusterRequest, ClusterStatus, ClusterStatusList } from './clusters.schemas.ts';

const tags = ['Clusters'];
const OrgParams = idParams('organizationId');
const ClusterParams = idParams('organizationId', 'clusterId');

export function clusterRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.clusters;

  app.get('/organization/:organizationId/cluster', {
    schema: { tags, operationId: 'listOrganizationCluster', params: OrgParams, querystring: NamedPageQuery, response: { 200: ClusterList } },
  }, async (req) => svc.list(req.principal, req.params.organizationId, pageRequest(req.query, 'configuration')));

  app.post('/organization/:organizationId/cluster', {
    schema: { tags, operationId: 'createCluster', summary: 'Create a cluster (ADMIN); cpu/memory/gpu cap what one service may request', params: OrgParams, body: ClusterRequest, response: { 201: Cluster } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.params.organizationId, req.body)));

  app.get('/organization/:organizationId/cluster/status', {
    schema: { tags, operationId: 'getOrganizationClusterStatus', params: OrgParams, response: { 200: ClusterStatusList } },
  }, async (req) => svc.statuses(req.principal, req.params.organizationId));

  app.get('/organization/:organizationId/cluster/:clusterId', {
    schema: { tags, operationId: 'getCluster', params: ClusterParams, response: { 200: Cluster } },
  }, async (req) => svc.get(req.principal, req.params.organizationId, req.params.clusterId));

  app.put('/organization/:organizationId/cluster/:clusterId', {
    schema: { tags, operationId: 'editCluster', summary: 'Edit a cluster (members omitted keep their value)', params: ClusterParams, body: ClusterRequest, response: { 200: Cluster } },
  }, async (req) => svc.update(req.principal, req.params.organizationId, req.params.clusterId, req.body));

  app.delete('/organization/:organizationId/cluster/:clusterId', {
    schema: { tags, operationId: 'deleteCluster', summary: 'Delete a cluster no environment uses (409 otherwise)', params: ClusterParams, response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, req.params.organizationId, req.params.clusterId);
    return reply.code(204).send(null);
  });

  app.get('/organization/:organizationId/cluster/:clusterId/status', {
    schema: { tags, operationId: 'getClusterStatus', params: ClusterParams, response: { 200: ClusterStatus } },
  }, async (req) => svc.status(req.principal, req.params.organizationId, req.params.clusterId));
  app.get('/organization/:organizationId/cluster/:clusterId/advancedSettings', {
    schema: { tags, operationId: 'getClusterAdvancedSettings', summary: 'The cluster\'s advanced settings, every key with its value (recorded; the local engines do not act on them yet)', params: ClusterParams, response: { 200: ClusterAdvancedSettings } },
  }, async (req) => svc.advancedSettings(req.principal, req.params.organizationId, req.params.clusterId));
  app.put('/organization/:organizationId/cluster/:clusterId/advancedSettings', {
    schema: { tags, operationId: 'editClusterAdvancedSettings', summary: 'Change cluster advanced settings (ADMIN): the keys sent change, the others stay; answers the complete object', params: ClusterParams, body: ClusterAdvancedSettingsPatch, response: { 201: ClusterAdvancedSettings } },
  }, async (req, reply) => reply.code(201).send(await svc.editAdvancedSettings(req.principal, req.params.organizationId, req.params.clusterId, req.body as Record<string, unknown>)));
}
