// Owns: the public entry point of berth's cron module (Kubernetes CronJob schedule syntax,
// time-zone-aware firing times, minimum-interval checks). Implementation lives in ./cron/.
//
// DST rules used throughout (Zone.wallToInstant):
// - a wall time that a spring-forward skips fires at the first instant after the gap (the
//   transition itself); several skipped times collapse into that one firing;
// - a wall time that a fall-back repeats fires once, at its first instance.
// Note robfig/cron v3 (what Kubernetes runs) differs on both: it skips gap times and fires twice
// in a repeated hour.

export { parseCron } from './cron/parse.ts';
export type { CronSchedule } from './cron/parse.ts';
export { isValidTimeZone } from './cron/zone.ts';
export { nextOccurrence, occurrencesBetween } from './cron/occurrences.ts';
export { checkMinimumInterval, findMinimumGap, minimumGapMs } from './cron/gap.ts';
