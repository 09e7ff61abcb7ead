// What `npm run build` compiles, and so what scripts/build-if-stale.js compares with the build: every TypeScript
// file under these folders (tests excluded), and the two benchmark entry points that measure the compiled code
// (bench/engine-server.ts, bench/pipeline-run.ts: they run what `tradeseal serve` and `pipeline run` run).
export const BUILD_SOURCES = { dirs: ['src', 'commands', 'pipeline'], files: ['bench/engine-server.ts', 'bench/pipeline-run.ts'] };
