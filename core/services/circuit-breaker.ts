/** Closed: calls go through. Open: none do. Half-open: `openMs` after opening, one probe does. */
export type CircuitState = 'closed' | 'half-open' | 'open';

/** What `tryPass` let through: an ordinary call, or the half-open circuit's one probe. */
export type CircuitPass = 'call' | 'probe';

export interface CircuitRule {
  /** Consecutive transient failures that open the circuit. */
  failures: number;
  /** How long it stays open before one probe is let through. */
  openMs: number;
}

/**
 * One engine's circuit, in one process. A small state machine rather than a library's breaker
 * (cockatiel, opossum): those wrap the call, while the router must know before taking an engine's
 * cluster-wide slot whether the engine may be called at all, and give the probe back when no slot
 * is free.
 */
export class CircuitBreaker {
  #failures = 0;
  #openedAt: number | null = null;
  #probing = false;

  constructor(
    private readonly rule: CircuitRule,
    private readonly now: () => number,
  ) {}

  get state(): CircuitState {
    if (this.#openedAt === null) return 'closed';
    return this.now() - this.#openedAt >= this.rule.openMs ? 'half-open' : 'open';
  }

  /** Whether a call may go now: any while closed; while half-open the one probe, until it ends. */
  tryPass(): CircuitPass | null {
    const state = this.state;
    if (state === 'closed') return 'call';
    if (state === 'open' || this.#probing) return null;
    this.#probing = true;
    return 'probe';
  }

  /** The engine answered (an image, or a final refusal): the circuit closes. */
  succeeded(): void {
    this.#failures = 0;
    this.#openedAt = null;
    this.#probing = false;
  }

  /** A transient failure: the one that reaches `failures` in a row, or a failed probe, opens the circuit (again). */
  failed(): void {
    this.#probing = false;
    if (this.#openedAt !== null || ++this.#failures >= this.rule.failures) this.#openedAt = this.now();
  }

  /** A pass that never reached the engine, or ended saying nothing of it (no slot, a stopping worker): a probe is given back. */
  abandon(pass: CircuitPass): void {
    if (pass === 'probe') this.#probing = false;
  }
}
