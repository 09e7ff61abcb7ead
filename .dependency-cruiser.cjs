/**
 * The layers, and the directions imports may take between them: LAYERS bottom to top, ALLOWED what each may import
 * besides itself and npm packages (the two services never import each other: an effect of one on the other goes
 * through the store, as an event the other subscribes to). `npm run layers` checks them and `npm test` runs that
 * check (test/layers/rules.test.ts); docs/design.md's layer drawing is generated from the rules below
 * (scripts/layers-doc.ts, `npm run docs`).
 */
const LAYERS = [
  {
    name: 'core',
    path: '^src/core/',
    what: 'what every part shares: the regime vocabulary, errors, settings, dates and calendars, crypto, the RFC 9162 log code, validation, the signed record types',
  },
  {
    name: 'store',
    path: '^src/(store|secrets|credentials)/',
    what: 'the database (PostgreSQL or the embedded store), the regime broadcast stream, sealed secrets and their KMS, credential changes',
  },
  { name: 'pipeline', path: '^pipeline/', what: "the pipeline's numerics and stages: ingest, features, models, forecasts, reports" },
  { name: 'engine', path: '^src/engine/', what: "the compliance engine's store and use cases" },
  { name: 'signals', path: '^src/signals/', what: "the regime signal service's store and use cases, with its publishing and nightly runs" },
  { name: 'http', path: '^src/http/', what: "the HTTP server; each service's routes a Fastify plugin (src/http/engine/, src/http/signals/, src/http/irl/)" },
  { name: 'cli', path: '^(src/(cli|demo)|commands)/', what: 'the command line: oclif commands, terminal views, the demo' },
];

/** What each layer may import besides itself and npm packages. */
const ALLOWED = {
  core: [],
  store: ['core'],
  pipeline: ['core', 'store'],
  engine: ['core', 'store'],
  signals: ['core', 'store', 'pipeline'],
  http: ['core', 'store', 'pipeline', 'engine', 'signals'],
  cli: ['core', 'store', 'pipeline', 'engine', 'signals', 'http'],
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
      comment: `${layer.what}. Imports from: ${ALLOWED[layer.name].length ? ALLOWED[layer.name].join(', ') : 'nothing but itself'} (and npm packages).`,
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
