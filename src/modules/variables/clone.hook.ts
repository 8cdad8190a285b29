// Plugs copyVariables into the environments module's clone: its `cloneHooks` run inside the
// clone's transaction with the source → copy service id map. Registered once per process.
import { cloneHooks, type CloneHook } from '../environments/environments.service.ts';
import { copyVariables } from './clone.ts';

const copyVariablesOnClone: CloneHook = async (tx, ctx, args) => {
  await copyVariables(tx, ctx.sealer, args);
};

/** idempotent: every app built in one process shares the hook list */
export function registerVariablesCloneHook(): void {
  if (!cloneHooks.includes(copyVariablesOnClone)) cloneHooks.push(copyVariablesOnClone);
}
