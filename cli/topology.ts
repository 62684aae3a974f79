import os from 'node:os';
import type { Cradle } from '../core/cradle.ts';
import type { ProcessRecord, ProcessRole } from '../core/ports/queue-tables/index.ts';
import { registerProcess, type RegisteredProcess } from '../core/services/process-registry.ts';
import { connectionBudgetWarning, connectionsOf } from './connection-budget.ts';
import type { Output } from './output.ts';

/**
 * Which deployments work (docs/operations.md, "Two ways to deploy"): SQLite and the local CDN
 * keep their data on one host; several hosts need Postgres, S3-protocol storage and shared limits.
 * A process registers itself, then compares the others it sees with its own configuration.
 */
export interface TopologyInput {
  role: ProcessRole;
  hostname: string;
  database: 'sqlite' | 'postgres';
  cdn: string;
  limits: string;
  /** Live processes on the same database, this one included. */
  live: ProcessRecord[];
}

export interface TopologyFindings {
  /** Set when this process must not start: why, and what to change. */
  refusal?: string;
  warnings: string[];
}

const isApi = (role: ProcessRole) => role === 'serve' || role === 'serve-api-only';
const hosts = (records: ProcessRecord[]) => [...new Set(records.map((record) => record.hostname))].sort();

export function topologyFindings({ role, hostname, database, cdn, limits, live }: TopologyInput): TopologyFindings {
  const warnings: string[] = [];
  let refusal: string | undefined;
  const elsewhere = live.filter((record) => record.hostname !== hostname);

  // SQLite is a file on this host: processes on other hosts cannot share it, so there is nothing to compare.
  if (database === 'postgres') {
    if (cdn === 'local' && elsewhere.length) {
      const problem = `The image CDN is 'local' (files in this host's data directory), but processes on other hosts (${hosts(elsewhere).join(', ')}) use the same database: images one host writes, the others cannot read or serve.`;
      const fix = `Use S3-protocol storage behind a CDN (VISUALIZER_CDN=s3, see docs/operations.md "S3 and a CDN") for every process, or run all processes on one host.`;
      if (role === 'worker') refusal = `${problem} ${fix}`;
      else warnings.push(`${problem} ${fix}`);
    } else if (cdn === 'local' && isApi(role)) {
      warnings.push(
        `Single host only: the image CDN is 'local' (files in this host's data directory), so every process of this deployment must run on this host (${hostname}). To run on several hosts, use VISUALIZER_CDN=s3 (docs/operations.md "Two ways to deploy").`,
      );
    }
    const apiProcesses = live.filter((record) => isApi(record.role));
    if (limits === 'memory' && isApi(role) && apiProcesses.length > 1) {
      warnings.push(
        `Rate limits are per process: ${apiProcesses.length} API processes share this database with in-memory limits, so a key gets up to ${apiProcesses.length} times its limit. Set VISUALIZER_LIMITS=redis with REDIS_URL (or VISUALIZER_LIMITS=postgres) for limits shared by all processes.`,
      );
    }
  }
  // A `serve` started with VISUALIZER_WORKER_CONCURRENCY=0 renders nothing either.
  const renders = (record: ProcessRecord) =>
    record.role === 'worker' || (record.role === 'serve' && record.details.workers !== 0);
  if (role === 'serve-api-only' && !live.some(renders)) {
    warnings.push(
      `No worker is running on this database: renders and webhook deliveries wait until one starts. Start 'visualizer worker' processes (or run 'visualizer serve' without --api-only).`,
    );
  }
  return { refusal, warnings };
}

/** A deployment this process must not join; printed as its message alone (exit code 1), like a configuration error. */
export class TopologyError extends Error {
  override name = 'ConfigError';
}

/** The host name processes compare; VISUALIZER_HOSTNAME overrides it (tests run "two hosts" on one machine). */
export const hostnameOf = (env: NodeJS.ProcessEnv) => env.VISUALIZER_HOSTNAME?.trim() || os.hostname();

/**
 * Registers this process, checks the deployment it joins, prints warnings on stderr and throws
 * (after unregistering) when it must not start. The caller stops the registration on shutdown.
 */
export async function joinTopology(
  cradle: Cradle,
  { role, env, output }: { role: ProcessRole; env: NodeJS.ProcessEnv; output: Output },
): Promise<RegisteredProcess> {
  const { config, persistence } = cradle;
  const limits = (config.plugins as Record<string, string | undefined>).limits ?? 'memory';
  const workers = role === 'serve-api-only' ? 0 : config.workers.concurrency;
  const registered = await registerProcess(cradle, {
    role,
    hostname: hostnameOf(env),
    pid: process.pid,
    details: {
      cdn: config.plugins.cdn,
      queue: config.plugins.queue,
      limits,
      workers,
      connections: connectionsOf(cradle, { runsWorkers: workers > 0 }),
    },
  });
  try {
    const live = await registered.live();
    const findings = topologyFindings({
      role,
      hostname: registered.record.hostname,
      database: persistence.capabilities.embedded ? 'sqlite' : 'postgres',
      cdn: config.plugins.cdn,
      limits,
      live,
    });
    if (findings.refusal) throw new TopologyError(findings.refusal);
    const budget = connectionBudgetWarning(live, await persistence.connectionLimit?.());
    for (const warning of [...findings.warnings, ...(budget ? [budget] : [])]) output.err(`Warning: ${warning}`);
    return registered;
  } catch (error) {
    await registered.stop();
    throw error;
  }
}
