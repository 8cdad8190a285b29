// The request examples of the API reference, one source (docs/decisions/0407): a realistic body
// per operation that takes one, keyed by operationId. The OpenAPI collector puts each in its
// operation's requestBody (`content['application/json'].example`, what Swagger UI's "Try it out"
// pre-fills); the tests send the same objects as their fixtures, so an example that stops
// working fails a test. test/foundation/request-examples.test.ts checks that every request body
// of /openapi.json has one and that it validates against its schema as the app validates bodies.
import { backupExamples } from './backups.ts';
import { domainExamples } from './domains.ts';
import { hierarchyExamples } from './hierarchy.ts';
import { manifestExamples } from './manifests.ts';
import { notificationExamples } from './notifications.ts';
import { cancelExamples, serviceExamples } from './services.ts';
import { variableExamplesByOperation } from './variables.ts';
import { workflowExamples } from './workflows.ts';

const BY_OPERATION: Readonly<Record<string, unknown>> = Object.freeze({
  ...hierarchyExamples,
  ...serviceExamples,
  ...cancelExamples,
  ...variableExamplesByOperation(),
  ...workflowExamples,
  ...domainExamples,
  ...backupExamples,
  ...notificationExamples,
  ...manifestExamples,
});

/** operationIds that have an example of their own */
export function exampleOperationIds(): string[] {
  return Object.keys(BY_OPERATION);
}

/** an object schema that admits no member at all (`{}` is the only body: a bodiless action) */
function isEmptyObject(schema: unknown): boolean {
  const s = schema as { type?: unknown; properties?: Record<string, unknown>; additionalProperties?: unknown };
  return s?.type === 'object' && Object.keys(s.properties ?? {}).length === 0 && s.additionalProperties === false;
}

/** the example request body of an operation: its own, else `{}` when that is the only body its schema admits */
export function requestExample(operationId: string | undefined, bodySchema: unknown): unknown {
  if (operationId && Object.hasOwn(BY_OPERATION, operationId)) return BY_OPERATION[operationId];
  return isEmptyObject(bodySchema) ? {} : undefined;
}
