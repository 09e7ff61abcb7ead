/**
 * The layers, and the directions imports may take between them. `npm run layers` checks them (CI runs it in
 * `npm test`); docs/design.md draws them from this file (`npm run docs`).
 *
 * Bottom to top:
 *   core      src/core/       what every part shares: the regime vocabulary, errors, settings, dates, crypto, the
 *                             RFC 9162 log code, validation, and the signed record types
 *   store     src/store/, src/secrets/, src/credentials/   the database, sealed secrets, credential changes
 *   pipeline  pipeline/       the pipeline's pure numerics and stages (ingest, features, models, reports)
 *   engine    src/engine/     the compliance engine's store and use cases
 *   signals   src/signals/    the regime signal service's store and use cases, its publishing and nightly runs
 *   http      src/http/       the HTTP server: each service's routes a Fastify plugin
 *   cli       src/cli/, src/demo/, commands/   the command line
 * A layer imports only from layers below it; the two services never import each other.
 */
const LAYERS = [
  { name: 'core', path: '^src/core/' },
  { name: 'store', path: '^src/(store|secrets|credentials)/' },
  { name: 'pipeline', path: '^pipeline/' },
  { name: 'engine', path: '^src/engine/' },
  { name: 'signals', path: '^src/signals/' },
  { name: 'http', path: '^src/http/' },
  { name: 'cli', path: '^(src/(cli|demo)|commands)/' },
];

/** What each layer may import besides itself and npm packages. */
const ALLOWED = {
  core: [],
  store: ['core'],
  pipeline: ['core', 'store'],
  engine: ['core', 'store'],
  signals: ['core', 'store', 'pipeline'],
  http: ['core', 'store', 'pipeline', 'engine', 'signals'],
  cli: ['core', 'store', 'pipeline', 'engine', 'signals', 'http', 'cli'],
};

const pathOf = (name) => LAYERS.find((l) => l.name === name).path;

module.exports = {


  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: the modules in it cannot be read, tested or loaded one without the others.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unlayered',
      severity: 'error',
      comment: 'Every module of the application belongs to a layer (see the header of .dependency-cruiser.cjs).',
      from: { path: '^(src|pipeline|commands)/', pathNot: LAYERS.map((l) => l.path) },
      to: {},
    },
    ...LAYERS.map((layer) => ({
      name: `layer-${layer.name}`,
      severity: 'error',
      comment: `${layer.name} imports only from ${ALLOWED[layer.name].length ? ALLOWED[layer.name].join(', ') : 'itself'} (and npm packages).`,
      from: { path: layer.path },
      to: {
        path: '^(src|pipeline|commands)/',
        pathNot: [layer.path, ...ALLOWED[layer.name].map(pathOf)],
      },
    })),
    {
      name: 'http-without-duckdb',
      severity: 'error',
      comment: 'The HTTP server does not load DuckDB (the batch pipeline runs in its own process).',
      from: { path: '^src/http/' },
      to: { path: '@duckdb/node-api', reachable: true },
    },
    {
      name: 'not-to-dev-tooling',
      severity: 'error',
      comment: 'What `npm run build` ships does not import tests, benchmarks or scripts.',
      from: { path: '^(src|pipeline|commands)/' },
      to: { path: '^(test|bench|scripts|replay)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.tsx', '.js'] },
    exclude: { path: '^(node_modules|dist)/' },
  },
};
