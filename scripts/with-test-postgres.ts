/**
 * Runs a command (the test run) with one throwaway Postgres cluster for all of it, so the test files
 * that need Postgres each create a database on it instead of each running initdb and a server of
 * their own: `node --import tsx scripts/with-test-postgres.ts <command> [args…]`.
 * With a postgres:// DATABASE_URL set, that server serves the tests and no cluster is started.
 */
import { spawn } from 'node:child_process';
import { SHARED_CLUSTER_VARIABLE, startCluster } from '../test/support/postgres-server.ts';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: with-test-postgres.ts <command> [args…]');
  process.exit(2);
}

const external = /^postgres(ql)?:\/\//i.test(process.env.DATABASE_URL ?? '');
const cluster = external ? undefined : await startCluster();
const env = cluster ? { ...process.env, [SHARED_CLUSTER_VARIABLE]: cluster.adminUrl } : process.env;

const child = spawn(command, args, { stdio: 'inherit', env });
// The child shares our terminal's process group, so it gets Ctrl-C itself; we only outlive it to clean up.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
const code = await new Promise<number>((resolve) => {
  child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1)));
  child.on('error', (error) => {
    console.error(`with-test-postgres: cannot run ${command}: ${error.message}`);
    resolve(127);
  });
});
await cluster?.stop();
process.exit(code);
