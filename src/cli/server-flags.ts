// Node options every berth server process starts with. They must be on Node's command line (V8
// sizes its heap before any JavaScript runs), so they appear three times, kept equal by
// test/foundation/runtime.test.ts: `npm start` (package.json), the `berth` command's
// shebang (bin/berth.mjs) and this list, which the tests and the bench use to start berth.
//
// --max-semi-space-size=4: V8's young generation grows to 2 × 16 MiB semi-spaces under load
// and keeps them; capped at 4 MiB a loaded server peaked at 154 MiB instead of 195 (idle 121
// instead of 130) with the same throughput, most objects of a request dying young either way
// (decision 0705).
// --heap-growing-percent=20: V8 lets the old generation grow to 1.2 × what survived the last full
// collection before the next one; left to itself it picks a factor between 1.1 and 4 from how
// cheap collections look. On PGlite many requests' objects die in the old generation, and with
// V8's choice a loaded server collected them only past 160–180 MiB of heap (peak RSS 358–388 MiB
// for 204–227 idle under the bench's cases); now past ~70 (peak 235–250). On PostgreSQL almost
// nothing dies old and the peak did not move (decision 0711).
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=20'];
