import type { ParseArgsConfig } from 'node:util';
import { ApiError } from '../core/domain/errors.ts';

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;
import type { Output } from './output.ts';

export interface CommandContext {
  env: NodeJS.ProcessEnv;
  output: Output;
}

export interface Command {
  /** Words that select it, e.g. `orgs create`. */
  name: string;
  usage: string;
  summary: string;
  options: ParseArgsOptionsConfig;
  /** Resolves to the exit code. */
  run(values: Record<string, string | boolean | undefined>, context: CommandContext): Promise<number>;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

export const jsonOption = { json: { type: 'boolean' } } as const satisfies ParseArgsOptionsConfig;

export function requireText(values: Record<string, unknown>, option: string): string {
  const value = values[option];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${option} is required.`);
  return value;
}

export function requireInteger(
  values: Record<string, unknown>,
  option: string,
  { required = true, min = 0 } = {},
): number | undefined {
  const value = values[option];
  if (value === undefined && !required) return undefined;
  const text = typeof value === 'string' ? value.trim() : '';
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min) {
    throw new UsageError(
      `--${option} must be a whole number of ${min} or more${value === undefined ? ' (missing)' : `, not '${String(value)}'`}.`,
    );
  }
  return Number(text);
}

/** Errors a person can fix print as one line; anything else keeps its stack for a bug report. */
export function describeError(error: unknown): string {
  if (error instanceof UsageError || error instanceof ApiError) return error.message;
  if (error instanceof Error && (error.name === 'ConfigError' || isParseArgsError(error))) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

export const isParseArgsError = (error: unknown) =>
  String((error as { code?: unknown })?.code ?? '').startsWith('ERR_PARSE_ARGS');
