/** How often a process started by npm checks that its parent is still there. */
const parentCheckMs = 500;
/** The parent at start-up: one that dies before `stopSignal` is called still counts. */
const originalParent = process.ppid;

/**
 * Resolves when the process is asked to stop: SIGTERM or SIGINT, or, when npm started it (npm
 * sets `npm_lifecycle_event`), its parent going away. npm forwards a signal only to the shell it
 * runs a script in; a shell that does not hand its process over (`exec`) dies of the signal and
 * leaves this process running, so a parent that is gone counts as the signal.
 *
 * The handlers stay installed until the process ends: a second signal during shutdown (Ctrl-C
 * reaches the process from the terminal and again from npm) must not cut the shutdown short.
 */
export function stopSignal(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve) => {
    let parentCheck: NodeJS.Timeout | undefined;
    const stop = (reason: string) => {
      clearInterval(parentCheck);
      resolve(reason);
    };
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stop(signal));
    if (env.npm_lifecycle_event) {
      const parentGone = () => process.ppid !== originalParent;
      if (parentGone()) return stop('its parent process exited');
      parentCheck = setInterval(() => {
        if (parentGone()) stop('its parent process exited');
      }, parentCheckMs);
      parentCheck.unref();
    }
  });
}
