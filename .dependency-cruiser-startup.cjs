/**
 * What a `tradeseal` command loads before it runs: oclif loads the one command it runs (from oclif.manifest.json,
 * built by `npm run build`), so the start-up of `--version`, `--help` or a read command is only as heavy as what
 * that command and the CLI's shared modules import at load. This rule keeps DuckDB, Fastify, jspurefix and ink
 * out of that: a command that needs one imports it inside `run()` (`await import(...)`), and only that command
 * pays for it, only when it runs. Checked on the code as Node runs it: type-only imports (erased by the build)
 * and dynamic imports are not followed. `npm run layers` runs it after the layer rules (.dependency-cruiser.cjs).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- dependency-cruiser reads its configuration as CommonJS
const base = require('./.dependency-cruiser.cjs');

const HEAVY = ['@duckdb/node-api', 'fastify', 'jspurefix', 'ink'];

module.exports = {
  forbidden: [
    {
      name: 'cli-starts-light',
      severity: 'error',
      comment: `A command, or a hook oclif runs at start, imports ${HEAVY.join(', ')} at load: import it inside run() instead (await import()).`,
      from: { path: '^(commands|src/cli/hooks)/' },
      to: { path: `node_modules/(${HEAVY.join('|')})/`, reachable: true },
    },
  ],
  options: { ...base.options, tsPreCompilationDeps: false, exclude: { ...base.options.exclude, dynamic: true } },
};
