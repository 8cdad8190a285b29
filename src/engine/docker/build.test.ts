// The classic builder's resource options from a build request, pure: memory with swap equal to
// it (2 GiB when not set), a CPU quota over Docker's 100 ms period, the layer cache switched off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildLimits, DEFAULT_BUILD_MEMORY_BYTES } from './build.ts';

test('memory is capped (2 GiB by default), swap equal to it; no CPU option without a quota', () => {
  assert.deepEqual(buildLimits({}), { memory: DEFAULT_BUILD_MEMORY_BYTES, memswap: DEFAULT_BUILD_MEMORY_BYTES });
  assert.deepEqual(buildLimits({ memoryBytes: 8 * 1024 ** 3, cpuMilli: 0 }), { memory: 8 * 1024 ** 3, memswap: 8 * 1024 ** 3 });
});

test('millicores become a CFS quota over a 100 ms period; disable cache is nocache', () => {
  assert.deepEqual(buildLimits({ cpuMilli: 4000 }), { memory: DEFAULT_BUILD_MEMORY_BYTES, memswap: DEFAULT_BUILD_MEMORY_BYTES, cpuperiod: 100_000, cpuquota: 400_000 });
  assert.equal(buildLimits({ cpuMilli: 250 }).cpuquota, 25_000);
  assert.equal(buildLimits({ cpuMilli: 1 }).cpuquota, 1000, 'Docker refuses a quota under 1 ms');
  assert.equal(buildLimits({ noCache: true }).nocache, true);
  assert.equal('nocache' in buildLimits({ noCache: false }), false);
});
