// Where a deployment's time went, for the engine benches: its claim by a worker and each line of
// its log, in ms after the POST that created it (wall clock of the bench's machine, which berth
// shares in these runs).
import type { EngineBerth } from '../test/support/engine-berth.ts';

export async function deploymentTimeline(berth: EngineBerth, deploymentId: string, postedAt: number): Promise<string> {
  const lines = (await berth.api('GET', `/deployment/${deploymentId}/log?page_size=100`)).body.results as Array<{ created_at: string; message: string }>;
  const record = (await berth.api('GET', `/deployment/${deploymentId}`)).body as { created_at: string; started_at: string | null };
  return [
    `+${Date.parse(record.created_at) - postedAt} queued`,
    `+${Date.parse(record.started_at ?? record.created_at) - postedAt} claimed`,
    ...lines.map((l) => `+${Date.parse(l.created_at) - postedAt} ${l.message.slice(0, 140)}`),
  ].join(' | ');
}
