/**
 * An image storage error as a log line or a job's stored reason may show it: its name and the
 * first code down its chain of causes (`Error EACCES (unlink)`, `Error ECONNREFUSED (connect)`),
 * never a message, which names the file or key it failed on, such as an uploaded photo's private
 * key, never logged (docs/privacy.md).
 */
export function describeStorageError(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  // A network failure's code is on a cause: the adapter's error wraps fetch's, which wraps the socket's.
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth += 1) {
    const { code, syscall } = cause as { code?: unknown; syscall?: unknown };
    if (typeof code !== 'string' && typeof code !== 'number') continue;
    return `${error.name} ${code}${typeof syscall === 'string' ? ` (${syscall})` : ''}`;
  }
  return error.name;
}
