// The `engine.uninstall` worker: uninstalls, through the engine driver, the services of deleted
// environments (see src/modules/deployments/uninstall-on-removal.ts).
import type { AppContext } from '../context.ts';

import { runEngineUninstall } from '../modules/deployments/uninstall-on-removal.ts';

type Ctx = Pick<AppContext, 'queue' | 'config' | 'logger' | 'engine' | 'sealer'>;

let working = false;
let latest: Ctx | undefined;
export async function startEngineUninstallWorker(ctx: Ctx): Promise<void> {
  latest = ctx;
  if (working) return;
  working = true;
  await ctx.queue.work('engine.uninstall', async (payload) => {
    await runEngineUninstall(latest!, (payload.services ?? []) as Parameters<typeof runEngineUninstall>[1]);
  });
}
