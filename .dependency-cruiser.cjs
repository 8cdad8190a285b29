// The architecture table of the design (which folder may import which), checked by
// dependency-cruiser: `npm run lint:deps` (decision 0346). Each rule names the line of the table it
// comes from; its `comment` is what a person reads next to a violation.
//
// Every rule below forbids an import from one folder into one of OURS that the table does not
// allow. Imports of npm packages and of Node's built-ins are not ours and never caught. Files that
// no table line names (src/mcp, src/client, the composition root src/*.ts, src/modules/index.ts,
// bench/, scripts/) are held only to the two rules that apply everywhere: no circles, and the
// engine's one face. Tests (`*.test.ts`, test/) are not checked.
//
// Beyond the table, the project's own decisions allow: the engine reads config (0301: the driver is
// chosen from the configuration at start, src/engine/select.ts); and the composition root's two
// types (0347): modules name the parts of `Platform` they use (src/platform.ts, a leaf), and
// `AppContext` (src/context.ts) is for routes, workers, the MCP server and operator commands, so
// http, workers and a module's routes files may import it, a module's other files may not.

/** every folder of ours, so a rule's `to` never catches an npm package or a built-in */
const OURS = '^(src|console|bench|scripts|test|bin)/';
/** decision 0347: the platform's parts (a leaf) and the context (the platform plus the services) */
const PLATFORM = '^src/platform[.]ts$';
const CONTEXT = '^src/context[.]ts$';
/** decision 0346: what a module's routes and schemas are written with (the App type, shared schemas, paging, validation wording) */
const ROUTE_KIT = '^src/http/(app-type|schemas|pagination|validation-messages|route-hooks|examples/[^/]+)[.]ts$';

/** `from` folder → the folders of ours it may import (its own always included) */
function onlyTo(name, from, allowed, comment) {
  return {
    name,
    severity: 'error',
    comment,
    from: { path: from },
    to: { path: OURS, pathNot: allowed },
  };
}

module.exports = {
  forbidden: [
    onlyTo('config-imports-lib', '^src/config/', ['^src/(config|lib)/'],
      'Architecture table, src/config/ ("the environment schema, parsed once into a frozen typed Config") may import: lib.'),
    onlyTo('db-imports-config-lib', '^src/db/', ['^src/(db|config|lib)/'],
      'Architecture table, src/db/ ("one Db interface over pg and PGlite; transactions; migrator") may import: config, lib.'),
    onlyTo('http-imports-modules-db-config-lib', '^src/http/', ['^src/(http|modules|mcp|db|queue|config|lib)/', PLATFORM, CONTEXT],
      'Architecture table, src/http/ ("Fastify app factory; error handler; auth; rate limit; pagination; OpenAPI") may import: modules, db, config, lib ' +
      '(and the composition root\'s Platform and AppContext, decision 0347; the MCP server it serves and the task kinds its metrics count, decision 0346).'),
    onlyTo('modules-import-db-queue-events-engine-lib', '^src/modules/[^/]+/', ['^src/(modules|db|queue|events|engine|lib|config)/', PLATFORM, CONTEXT, ROUTE_KIT],
      'Architecture table, src/modules/<family>/ ("the business rules of one resource family") may import: db, queue, events, engine, lib, other modules\' services ' +
      '(and the Platform type, decision 0347; the route kit its thin routes and schemas are written with, and the Config type, decision 0346).'),
    {
      name: 'modules-take-the-context-in-routes-only',
      severity: 'error',
      comment:
        'Design: "services get their dependencies explicitly from one composition root, never the whole context"; decision 0347: ' +
        'AppContext is for routes, workers, MCP and operator commands; a module\'s other files name the Platform parts they use.',
      from: { path: '^src/modules/', pathNot: ['routes[.]ts$', '^src/modules/index[.]ts$'] },
      to: { path: CONTEXT },
    },
    {
      name: 'modules-own-their-tables',
      severity: 'error',
      comment:
        'Design: "every table has one owning module (its SQL in that module\'s repo; others call its service)": another family is reached through its service ' +
        'and what it exports for others (its pure rules, schemas, helpers), never through its repo or its routes (decision 0346).',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/.*[.](repo|routes)[.]ts$', pathNot: ['^src/modules/$1/'] },
    },
    onlyTo('events-import-lib', '^src/events/', ['^src/(events|lib)/'],
      'Architecture table, src/events/ ("the catalogue of event kinds and their payload schemas") may import: lib.'),
    onlyTo('queue-imports-db', '^src/queue/', ['^src/(queue|db)/'],
      'Architecture table, src/queue/ ("the PostgreSQL task queue: enqueue inside the caller\'s transaction, claim, retries") may import: db.'),
    onlyTo('workers-import-modules-queue-engine', '^src/workers/', ['^src/(workers|modules|queue|engine)/', PLATFORM, CONTEXT, '^src/http/idempotency[.]ts$'],
      'Architecture table, src/workers/ ("the runner and the task handlers") may import: modules, queue, engine ' +
      '(and the composition root\'s Platform and AppContext, decision 0347; the maintenance task prunes the idempotency keys http keeps, decision 0346).'),
    onlyTo('engine-imports-lib-config', '^src/engine/', ['^src/(engine|lib|config)/'],
      'Architecture table, src/engine/ ("deployment drivers behind one interface") may import: lib; and config, ' +
      'which chooses the driver at start (decision 0301, src/engine/select.ts). Drivers never touch the database.'),
    onlyTo('lib-imports-nothing-of-ours', '^src/lib/', ['^src/lib/'],
      'Architecture table, src/lib/ ("pure helpers with no I/O") may import: nothing of ours.'),
    onlyTo('cli-client-imports-the-public-api', '^src/cli/client/', ['^src/(cli/client|client)/', '^src/lib/compose/'],
      'Architecture table, src/cli/: everything, but the client commands "only the public API" ' +
      '(they drive any berth over HTTP): src/cli/client and the generated API types in src/client; and the ' +
      'docker-compose translator in src/lib/compose (pure, imports nothing of ours: decision 0746).'),
    onlyTo('console-imports-the-public-api', '^console/', ['^console/', '^src/client/'],
      'Architecture table, console/ ("a single-page app over the public API") may import: the public API only ' +
      '(the generated API types in src/client).'),
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Zero import circles, type-only imports included (an `import type` circle still ties the two files together): ' +
        'data flows one way (design, Architecture).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engine-one-face',
      severity: 'error',
      comment:
        'Outside src/engine, the engine is imported through src/engine/index.ts only: the drivers sit "behind one interface" ' +
        '(Architecture table, src/engine/), so what is inside can move without touching its callers.',
      from: { pathNot: '^src/engine/' },
      to: { path: '^src/engine/', pathNot: '^src/engine/index[.]ts$' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment:
        'An import dependency-cruiser cannot resolve is one no rule above can check: a missing file or package, ' +
        'or a gap in this configuration.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // tests beside the sources and test/ are not held to the table (npm run lint:deps names the folders)
    exclude: { path: ['[.]test[.]tsx?$', '^test/'] },
    doNotFollow: { path: ['node_modules'] },
    // type-only imports are dependencies too (import type, export type … from)
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6', 'cjs'],
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.tsx', '.mjs', '.js', '.cjs', '.d.ts', '.json'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
