// Container request and response shapes (the public API's ContainerRequest/ContainerResponse): an
// image from a container registry of the organization, plus the shared runtime members.
import { Type, type Static } from 'typebox';
import { Paginated, Uuid } from '../../../http/schemas.ts';
import { AP, Registry, RuntimeRequestMembers, RuntimeResponseMembers, ServiceName, ServiceRecord } from '../common.schemas.ts';

const ImageName = Type.String({ minLength: 1, maxLength: 512, pattern: '^\\S+$' });
const Tag = Type.String({ minLength: 1, maxLength: 128, pattern: '^\\S+$' });

export const ContainerRequest = Type.Object({
  name: ServiceName, registry_id: Uuid, image_name: ImageName, tag: Tag, ...RuntimeRequestMembers,
}, AP);
export type ContainerRequest = Static<typeof ContainerRequest>;

export const ContainerEditRequest = Type.Object({
  name: Type.Optional(ServiceName), registry_id: Type.Optional(Uuid), image_name: Type.Optional(ImageName), tag: Type.Optional(Tag),
  ...RuntimeRequestMembers,
}, { ...AP, description: 'members sent change; members omitted keep their value' });
export type ContainerEditRequest = Static<typeof ContainerEditRequest>;

export const Container = Type.Object({
  ...ServiceRecord,
  registry_id: Uuid,
  image_name: Type.String(),
  tag: Type.String(),
  registry: Registry,
  source: Type.Object({ image_name: Type.String(), tag: Type.String(), registry_id: Uuid, registry: Registry }),
  ...RuntimeResponseMembers,
});
export type Container = Static<typeof Container>;

export const ContainerList = Paginated(Container);
