// Node options every berth server process starts with. They must be on Node's command line (V8
// sizes its heap before any JavaScript runs), so they appear three times, kept equal by
// test/foundation/conventions.test.ts: `npm start` (package.json), the `berth` command's
// shebang (bin/berth.mjs) and this list, which the tests and the bench use to start berth.
//
// --max-semi-space-size=4: V8's young generation grows to 2 × 16 MiB semi-spaces under load
// and keeps them; capped at 4 MiB a loaded server peaked at 154 MiB instead of 195 (idle 121
// instead of 130) with the same throughput, most objects of a request dying young either way
// (decision 0705).
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];
