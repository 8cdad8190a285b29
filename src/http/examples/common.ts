// What every request example shares: the ids they name (plausible uuids, one per kind of
// resource, so a test can swap each for a real one) and deep freezing (an example is read by the
// OpenAPI document and by the tests that send it: none may change it for the others).

/** the ids the examples refer to; they name nothing in a fresh berth: replace them with yours */
export const EXAMPLE_IDS = Object.freeze({
  user: '5b1c7f3e-2d4a-4e8b-9c61-0a7d3e9f2b14',
  cluster: '8e4b2a6c-1f3d-4c7a-b5e9-6d2f0a8c4e31',
  containerRegistry: '2f9d6b1a-7c3e-4a58-8b2d-e1c4a7f90635',
  deploymentRule: 'c7a13e58-94b2-4f6d-a0e7-3b85d1f42c9a',
  otherDeploymentRule: '4d6e8f0a-2b3c-4d5e-9f60-718293a4b5c6',
  application: 'a3f5c8e1-6b2d-4f7a-9e0c-1d8b4a6f2e73',
} as const);

/** `value`, frozen all the way down */
export function frozen<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) frozen(v);
    Object.freeze(value);
  }
  return value;
}
