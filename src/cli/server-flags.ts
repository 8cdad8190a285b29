// Node options every berth server process starts with. They must be on Node's command line (V8
// sizes its heap before any JavaScript runs), so they appear three times, kept equal by
// test/foundation/conventions.test.ts: `npm start` (package.json), the `berth` command's
// shebang (bin/berth.mjs) and this list, which the tests and the bench use to start berth.
//
// --max-semi-space-size=4: V8's young generation grows to 2 × 16 MiB semi-spaces under load
// and keeps them; capped at 4 MiB a loaded server peaked at 154 MiB instead of 195 (idle 121
// instead of 130) with the same throughput, most objects of a request dying young either way
// (decision 0705).
// --heap-growing-percent=50: V8 lets the old generation grow to 1.5 × what survived the last full
// collection before the next one, instead of up to 4 × when collections are cheap. On PGlite many
// requests' objects survive into the old generation and die there; with the default a loaded
// server collected them only past 160–180 MiB of heap (peak RSS 358–388 MiB for 204–227 idle),
// now past ~80 (peak 283; decision 0711).
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=50'];
