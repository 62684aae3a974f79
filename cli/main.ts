import { parseArgs } from 'node:util';
import { describeError, isParseArgsError, UsageError, type Command } from './command.ts';
import { creditsAdd } from './commands/credits.ts';
import { jobsDead, jobsRetry } from './commands/jobs.ts';
import { keysCreate, keysList, keysRevoke } from './commands/keys.ts';
import { listen } from './commands/listen.ts';
import { mcp } from './commands/mcp.ts';
import { migrate } from './commands/migrate.ts';
import { orgsCreate, orgsList, orgsUpdate } from './commands/orgs.ts';
import { serve } from './commands/serve.ts';
import { storesCreate, storesList } from './commands/stores.ts';
import { usersInvite } from './commands/users.ts';
import { widgetsCreate, widgetsList } from './commands/widgets.ts';
import { worker } from './commands/worker.ts';
import { processOutput, type Output } from './output.ts';

const commands: Command[] = [
  serve,
  worker,
  migrate,
  orgsCreate,
  orgsList,
  orgsUpdate,
  storesCreate,
  storesList,
  keysCreate,
  keysList,
  keysRevoke,
  creditsAdd,
  widgetsCreate,
  widgetsList,
  usersInvite,
  listen,
  mcp,
  jobsDead,
  jobsRetry,
];

function usage(): string {
  return [
    'Usage: visualizer <command> [options]',
    '',
    ...commands.map((command) => `  ${command.usage}\n      ${command.summary}`),
    '',
    'Configuration comes from the environment (PORT, DATABASE_URL, VISUALIZER_DATA_DIR, …) and VISUALIZER_CONFIG; see the README.',
  ].join('\n');
}

/** Finds the command named by the leading words of argv (`keys create …`). */
function findCommand(argv: string[]): { command: Command; rest: string[] } | null {
  for (const command of commands) {
    const words = command.name.split(' ');
    if (words.every((word, index) => argv[index] === word)) return { command, rest: argv.slice(words.length) };
  }
  return null;
}

/** Runs the CLI and resolves to the process exit code: 0 success, 1 failure, 2 bad usage. */
export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  output: Output = processOutput,
): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    output.out(usage());
    return argv.length === 0 ? 2 : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    output.err(`Unknown command '${argv.join(' ')}'.\n\n${usage()}`);
    return 2;
  }
  const { command, rest } = found;
  if (rest.includes('--help') || rest.includes('-h')) {
    output.out(`Usage: visualizer ${command.usage}\n\n${command.summary}`);
    return 0;
  }
  try {
    const { values } = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false });
    return await command.run(values as Record<string, string | boolean | undefined>, { env, output });
  } catch (error) {
    const isUsage = error instanceof UsageError || isParseArgsError(error);
    output.err(`visualizer ${command.name}: ${describeError(error)}`);
    if (isUsage) output.err(`Usage: visualizer ${command.usage}`);
    return isUsage ? 2 : 1;
  }
}
