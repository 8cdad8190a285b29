// The client commands of `berth` (commander): each with --help and examples; read commands take
// --json. Handlers live in commands/*; failures end with one line and an exit code (exit-codes.ts).
import { Command, CommanderError, Option } from 'commander';
import { CliError, EXIT, EXIT_CODES_HELP } from './exit-codes.ts';

const OPERATOR_HELP = `Server commands (run on the machine that hosts berth; see berth serve --help):
  serve [--role all|api|worker]   run the API and/or the workers
  migrate                         apply database migrations and exit
  token create --organization NAME [--role ROLE] [--name NAME]
  openapi                         print the OpenAPI document
  rotate-key | backup --out FILE | restore --from FILE`;

const examples = (lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

/** the options that choose where a command acts: names or ids, over the saved context */
function withTarget(cmd: Command): Command {
  return cmd
    .option('-o, --organization <name>', 'organization (name or id)')
    .option('-p, --project <name>', 'project (name or id)')
    .option('-e, --environment <name>', 'environment (name or id)');
}

function withScope(cmd: Command): Command {
  return cmd
    .option('-o, --organization <name>', 'organization (name or id)')
    .option('-p, --project [name]', 'the project scope (the context\'s project, or the one named)')
    .option('-e, --environment [name]', 'the environment scope (the default: the context\'s environment, or the one named)')
    .option('-s, --service <name>', 'the scope of one service (application, container or job) of the environment');
}

const json = new Option('--json', 'print JSON instead of text');

type Handler = (...args: any[]) => Promise<void> | void;
/** loads a command's module only when it runs: `berth --help` stays fast */
function run(load: () => Promise<Handler>) {
  return async (...args: unknown[]) => {
    const cmd = args.at(-1) as Command;
    const handler = await load();
    const positional = args.slice(0, -2);
    await handler(...positional, cmd.optsWithGlobals());
  };
}

function buildProgram(): Command {
  const program = new Command('berth')
    .description('berth: drive a berth control plane from your terminal (and run one: see server commands below)')
    .option('--server <name>', 'the saved server to use (default: the current one; see berth context)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .addHelpText('after', `\n${OPERATOR_HELP}\n\n${EXIT_CODES_HELP}\n` + examples([
      'berth login https://berth.example.com', 'berth context set --project shop --environment production',
      'berth status', 'berth deploy web --wait', 'berth logs web -f',
      `berth run triage --payload '{"alert":"disk full"}' --wait`, 'berth runs triage', 'berth db backup orders --wait',
    ]));

  program.command('login').argument('[url]', 'the berth to log in to', 'http://localhost:8080')
    .description('log in to a berth with an API token (read from a hidden prompt, or from stdin)')
    .option('--name <name>', 'a name for this server (default: its host and port)')
    .addHelpText('after', examples(['berth login https://berth.example.com', 'berth login http://localhost:8080 --name local < token.txt',
      'cat data/initial-api-token | berth login']))
    .action(run(async () => (await import('./commands/auth.ts')).login));

  program.command('logout').description('forget the token of the current server (or --server NAME, or --all)')
    .option('--all', 'every saved server')
    .addHelpText('after', examples(['berth logout', 'berth logout --server staging']))
    .action(run(async () => (await import('./commands/auth.ts')).logout));

  program.command('whoami').description('the server, the organizations this token sees with its role in each, and the context').addOption(json)
    .addHelpText('after', examples(['berth whoami', 'berth whoami --json']))
    .action(run(async () => (await import('./commands/auth.ts')).whoami));

  const context = program.command('context').description('show the organization, project and environment commands use').addOption(json)
    .addHelpText('after', examples(['berth context', 'berth context set --organization acme --project shop --environment staging']))
    .action(run(async () => (await import('./commands/context.ts')).showContext));
  withTarget(context.command('set').description('choose the server, organization, project and environment (names or ids)'))
    .addOption(json)
    .addHelpText('after', examples(['berth context set --project shop --environment production', 'berth context set --server staging']))
    .action(run(async () => (await import('./commands/context.ts')).setContext));

  withTarget(program.command('status').description("the environment's services (state, version, last deployment), agentic workflows (last run) and databases whose backups need attention")).addOption(json)
    .addHelpText('after', examples(['berth status', 'berth status --environment staging --json']))
    .action(run(async () => (await import('./commands/services.ts')).status));

  withTarget(program.command('services').description("list the environment's services")).addOption(json)
    .addHelpText('after', examples(['berth services', 'berth services -p shop -e production --json']))
    .action(run(async () => (await import('./commands/services.ts')).services));

  for (const action of ['deploy', 'redeploy', 'stop', 'restart'] as const) {
    const cmd = withTarget(program.command(action).argument('<service>', 'service name or id')
      .description(`${action} a service; --wait follows it live until its final status`))
      .option('-w, --wait', 'follow the deployment live; exit 0 on success, 6 on an error status, 7 when cancelled')
      .addOption(json);
    if (action === 'deploy') cmd.option('--commit <sha>', 'git commit to deploy (applications, jobs)').option('--tag <tag>', 'image tag to deploy (containers, jobs)');
    cmd.addHelpText('after', examples([`berth ${action} web --wait`, `berth ${action} worker -e staging`]))
      .action(run(async () => {
        const { act } = await import('./commands/deploy.ts');
        return (ref: string, opts: Parameters<typeof act>[2]) => act(action, ref, opts);
      }));
  }

  withTarget(program.command('settings').argument('<service>', 'service name or id')
    .description("a service's advanced settings, and which of them the server's engine applies (and why not)")).addOption(json)
    .addHelpText('after', examples(['berth settings web', 'berth settings web --json | jq \'.settings[] | select(.applied | not)\'']))
    .action(run(async () => (await import('./commands/settings.ts')).settings));

  withTarget(program.command('logs').argument('<service>', 'service name or id')
    .description("a service's build, deployment and runtime lines; -f follows them live"))
    .option('-f, --follow', 'keep printing lines as they are written (Ctrl-C to stop)')
    .option('-n, --tail <lines>', 'how many earlier lines to show (0 to 10000)', '100')
    .addOption(new Option('--json', 'one JSON object per line'))
    .addHelpText('after', examples(['berth logs web', 'berth logs web -f --tail 20', 'berth logs web --json | jq .message']))
    .action(run(async () => (await import('./commands/logs.ts')).logs));

  withTarget(program.command('run').argument('<workflow>', 'agentic workflow name or id').argument('[-]', 'read the payload from stdin')
    .description('start a run of an agentic workflow; --wait follows its transcript live and prints its result'))
    .option('--payload <json>', "the run's payload: any JSON the agent receives as its trigger")
    .option('--payload-file <file>', 'the payload from a JSON file (- for stdin)')
    .option('-w, --wait', 'follow the run live; exit 0 SUCCEEDED, 6 FAILED, 7 CANCELED (Ctrl-C stops following, not the run)')
    .addOption(json)
    .addHelpText('after', examples(['berth run triage --wait', `berth run triage --payload '{"alert":"disk full on db-1"}' --wait`,
      'berth run triage --payload-file alert.json -e staging', 'curl -s https://example.com/alert | berth run triage - --wait --json']))
    .action(run(async () => (await import('./commands/run.ts')).startRun));

  withTarget(program.command('runs').argument('<workflow>', 'agentic workflow name or id').argument('[run]', 'a run id, or its first characters as listed')
    .description("a workflow's recent runs; with a run: its transcript and result (-f: live until it ends)"))
    .option('-n, --limit <count>', 'how many of the newest runs to list (1 to 100)', '20')
    .option('-f, --follow', 'follow the run live until it ends; exit 0 SUCCEEDED, 6 FAILED, 7 CANCELED')
    .addOption(json)
    .addHelpText('after', examples(['berth runs triage', 'berth runs triage -n 50 --json', 'berth runs triage 3f2a6c1e', 'berth runs triage 3f2a6c1e -f']))
    .action(run(async () => (await import('./commands/runs.ts')).runs));

  withTarget(program.command('cancel').argument('<workflow>', 'agentic workflow name or id').argument('[run]', 'a run id or its first characters (default: the run in progress)')
    .description('cancel a workflow run, queued or running (its agent container is stopped)'))
    .addOption(json)
    .addHelpText('after', examples(['berth cancel triage', 'berth cancel triage 3f2a6c1e']))
    .action(run(async () => (await import('./commands/run.ts')).cancelRun));

  const env = program.command('env').description('environment variables of a project, environment or service')
    .addHelpText('after', examples(['berth env list', 'berth env set LOG_LEVEL=debug --service web', 'berth env unset LOG_LEVEL --project']));
  withScope(env.command('list').description('variables and secrets (values of secrets hidden), with those inherited')).addOption(json)
    .addHelpText('after', examples(['berth env list', 'berth env list --service web --json']))
    .action(run(async () => (await import('./commands/variables.ts')).envList));
  withScope(env.command('set').argument('<assignments...>', 'KEY=VALUE pairs').description('create or change variables'))
    .addHelpText('after', examples(['berth env set LOG_LEVEL=debug', 'berth env set A=1 B=2 --service web', 'berth env set REGION=eu --project']))
    .action(run(async () => {
      const { setVariables } = await import('./commands/variables.ts');
      return (a: string[], o: Parameters<typeof setVariables>[2]) => setVariables('environmentVariable', a, o);
    }));
  withScope(env.command('unset').argument('<keys...>', 'variable keys').description('remove variables'))
    .addHelpText('after', examples(['berth env unset LOG_LEVEL', 'berth env unset A B --service web']))
    .action(run(async () => {
      const { unsetVariables } = await import('./commands/variables.ts');
      return (k: string[], o: Parameters<typeof unsetVariables>[2]) => unsetVariables('environmentVariable', k, o);
    }));

  const secret = program.command('secret').description('secrets of a project, environment or service (never printed)')
    .addHelpText('after', examples(['berth secret set DATABASE_PASSWORD --service web', 'echo -n s3cret | berth secret set API_KEY']));
  withScope(secret.command('set').argument('<assignments...>', 'KEY (value from stdin or a hidden prompt) or KEY=VALUE'))
    .description('create or change secrets')
    .addHelpText('after', examples(['berth secret set API_KEY            # prompts, input hidden', 'echo -n "$TOKEN" | berth secret set API_KEY --project']))
    .action(run(async () => {
      const { setVariables } = await import('./commands/variables.ts');
      return (a: string[], o: Parameters<typeof setVariables>[2]) => setVariables('secret', a, o);
    }));
  withScope(secret.command('unset').argument('<keys...>', 'secret keys').description('remove secrets'))
    .addHelpText('after', examples(['berth secret unset API_KEY --service web']))
    .action(run(async () => {
      const { unsetVariables } = await import('./commands/variables.ts');
      return (k: string[], o: Parameters<typeof unsetVariables>[2]) => unsetVariables('secret', k, o);
    }));

  withTarget(program.command('open').argument('<service>', 'service name or id').description("print the service's public URL(s)"))
    .addOption(json)
    .addHelpText('after', examples(['berth open web', 'xdg-open "$(berth open web | head -1)"']))
    .action(run(async () => (await import('./commands/services.ts')).open));

  const previews = withTarget(program.command('previews').alias('preview')
    .description("the environment's preview environments: one per pull request (its branch, commit, state and copy); those from forks wait for approval"))
    .addOption(json)
    .addHelpText('after', examples(['berth previews', 'berth previews -e staging --json', 'berth preview approve 3f2a6c1e']))
    .action(run(async () => (await import('./commands/previews.ts')).list));
  withTarget(previews.command('approve').argument('<preview>', "the preview: its id, the first characters of its id, or its pull request's number (12, #12)")
    .description('approve the head commit of a pull request from a fork (DevOps role and above): its preview opens at that commit; a new commit waits again'))
    .addOption(json)
    .addHelpText('after', examples(['berth preview approve 3f2a6c1e-0d4b-4c8e-9a51-7b2e4d1f0a93 --environment 0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f', 'berth preview approve "#12"']))
    .action(run(async () => (await import('./commands/previews.ts')).approve));

  const domains = withTarget(program.command('domains').argument('[service]', 'application or container (name or id): list its domains')
    .description("custom domains of an application or container: list, add (prints the DNS record to create), rm, check DNS now"))
    .addOption(json)
    .addHelpText('after', examples(['berth domains web', 'berth domains add web shop.example.com', 'berth domains add web www.example.com --cdn --no-certificate',
      'berth domains check web', 'berth domains rm web shop.example.com']))
    .action(run(async () => (await import('./commands/domains.ts')).list));
  withTarget(domains.command('list').argument('<service>', 'application or container (name or id)')
    .description('its custom domains: status, the DNS record to create while berth waits for DNS, and why it waits or failed')).addOption(json)
    .addHelpText('after', examples(['berth domains list web', 'berth domains list web --json']))
    .action(run(async () => (await import('./commands/domains.ts')).list));
  withTarget(domains.command('add').argument('<service>', 'application or container (name or id)').argument('<domain>', 'the host name, e.g. shop.example.com')
    .description('add a custom domain and print the DNS record to create; berth then checks DNS and orders its certificate'))
    .option('--no-certificate', 'no certificate from berth: a CDN or you terminate TLS (served over HTTP)')
    .option('--cdn', 'the domain is proxied by a CDN: DNS only has to resolve')
    .addOption(json)
    .addHelpText('after', examples(['berth domains add web shop.example.com', 'berth domains add web Bücher.example.org', 'berth domains add web www.example.com --cdn --no-certificate']))
    .action(run(async () => (await import('./commands/domains.ts')).add));
  withTarget(domains.command('rm').alias('remove').argument('<service>', 'application or container (name or id)').argument('<domain>', 'the domain (its name or id)')
    .description('remove a custom domain: its route and certificate leave the ingress')).addOption(json)
    .addHelpText('after', examples(['berth domains rm web shop.example.com']))
    .action(run(async () => (await import('./commands/domains.ts')).remove));
  withTarget(domains.command('check').argument('<service>', 'application or container (name or id)')
    .description('ask DNS now where each custom domain points, and what to change when it is not berth')).addOption(json)
    .addHelpText('after', examples(['berth domains check web', 'berth domains check web --json']))
    .action(run(async () => (await import('./commands/domains.ts')).check));

  const db = program.command('db').description('database backups: take one now, list them, restore one (into a new database, or in place)')
    .addHelpText('after', `
A backup is a native dump taken inside the database's container (pg_dump, mysqldump, mongodump,
Redis' RDB), compressed, encrypted and kept in the organization's backup storage; it counts once
a restore drill has restored it (VERIFIED). Restores go into a new database beside the original
by default; --in-place replaces the database's contents after a safety backup (ADMIN role).
` + examples(['berth db backup orders --name before-migration --wait', 'berth db backups orders', 'berth db restore orders 3f2a6c1e --wait',
      'berth db restore orders before-migration --name orders-copy', 'berth db restore orders 3f2a6c1e --in-place --yes --wait']));
  withTarget(db.command('backup').argument('<database>', 'database name or id')
    .description('take a backup of the database now; --wait until it is SUCCEEDED (size, checksum) or FAILED'))
    .option('--name <name>', 'the backup\'s name (default: manual-<date>-<time>)')
    .option('--message <text>', 'a note kept with it')
    .option('-w, --wait', 'wait for the backup to finish; exit 0 SUCCEEDED, 6 FAILED')
    .addOption(json)
    .addHelpText('after', examples(['berth db backup orders', 'berth db backup orders --name before-migration --message "v2 schema" --wait']))
    .action(run(async () => (await import('./commands/backups.ts')).backup));
  withTarget(db.command('backups').argument('<database>', 'database name or id')
    .description("the database's backups, newest first: status, trigger, size, checksum, storage, when a drill last verified it, the error")).addOption(json)
    .addHelpText('after', examples(['berth db backups orders', 'berth db backups orders --json | jq \'.[] | select(.status == "FAILED")\'']))
    .action(run(async () => (await import('./commands/backups.ts')).backups));
  withTarget(db.command('restore').argument('<database>', 'database name or id').argument('<backup>', 'the backup: its id, its first characters, or its name')
    .description('restore a backup into a new database beside this one (default), or --in-place after a safety backup'))
    .option('--in-place', "replace the database's contents (a SAFETY backup is taken first; needs the ADMIN role and --yes)")
    .option('-y, --yes', 'confirm --in-place')
    .option('--name <name>', 'the new database\'s name (default: <database>-restored-<date>)')
    .option('-w, --wait', 'wait for the restore to finish; exit 0 SUCCEEDED, 6 FAILED')
    .addOption(json)
    .addHelpText('after', examples(['berth db restore orders 3f2a6c1e --wait', 'berth db restore orders before-migration --name orders-copy',
      'berth db restore orders 3f2a6c1e --in-place --yes --wait']))
    .action(run(async () => (await import('./commands/backups.ts')).restore));

  withTarget(program.command('plan').description('what applying a berth.yaml would change: create, update (field by field), unchanged, delete; nothing is changed'))
    .option('-f, --file <file>', 'the berth.yaml (- for stdin)', 'berth.yaml')
    .option('--prune', 'also plan deleting what the file no longer names (only what this file created)')
    .addOption(json)
    .addHelpText('after', `\nSecrets are references: a value env:NAME is read from this shell's environment (sent, never printed).\n` +
      examples(['berth plan -f berth.yaml', 'berth plan -f berth.yaml --prune --json']))
    .action(run(async () => (await import('./commands/manifests.ts')).plan));

  withTarget(program.command('apply').description('apply a berth.yaml: shows the plan, asks, then creates and updates in one transaction (all or nothing)'))
    .option('-f, --file <file>', 'the berth.yaml (- for stdin)', 'berth.yaml')
    .option('--deploy', 'deploy what changed once applied')
    .option('--prune', 'delete what the file no longer names (only what this file created)')
    .option('-y, --yes', 'apply without asking (it never asks when stdin is not a terminal)')
    .addOption(json)
    .addHelpText('after', examples(['berth apply -f berth.yaml', 'DB_PASSWORD=… berth apply -f berth.yaml --deploy --yes', 'berth apply --prune']))
    .action(run(async () => (await import('./commands/manifests.ts')).apply));

  withTarget(program.command('export').description("print an environment's berth.yaml (with --project only: the project's, every environment)"))
    .addHelpText('after', examples(['berth export > berth.yaml', 'berth export -p shop -e production > berth.yaml', 'berth export --project shop > berth.yaml']))
    .action(run(async () => (await import('./commands/manifests.ts')).exportManifest));

  const imp = program.command('import').description('write a berth.yaml from another tool\'s file');
  imp.command('compose').argument('<file>', 'the docker-compose file')
    .description('translate a docker-compose file into a berth.yaml; prints every key it did not translate, with why')
    .option('-o, --output <file>', 'where to write it (- for stdout)', 'berth.yaml')
    .option('--force', 'replace the output file when it exists')
    .option('-p, --project <name>', 'the project\'s name in the file (default: the compose name, else the folder\'s)')
    .option('-e, --environment <name>', 'the environment\'s name in the file', 'development')
    .addOption(json)
    .addHelpText('after', examples(['berth import compose docker-compose.yml', 'berth import compose compose.yaml -o - | less', 'berth import compose docker-compose.yml -p shop -e staging --force']))
    .action(run(async () => (await import('./commands/manifests.ts')).importCompose));

  return program;
}

/** runs the client commands; resolves to the process exit code */
export async function runClient(argv: string[]): Promise<number> {
  const program = buildProgram();
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.OK;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version' ? EXIT.OK : EXIT.USAGE;
    }
    if (err instanceof CliError) {
      process.stderr.write(`berth: ${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
}
