/**
 * Which secrets sign an endpoint's deliveries. A rotation makes a new current secret; the one it
 * replaces keeps signing until its own expiry, however many rotations follow, so a receiver still
 * holding any of them keeps verifying until that secret's grace period ends.
 */

/** A secret replaced by a rotation, still signing until `expiresAt` (exclusive). */
export interface PreviousSecret {
  secret: string;
  expiresAt: number;
}

export interface EndpointSecrets {
  secret: string;
  /** Newest first. */
  previousSecrets: PreviousSecret[];
}

/**
 * At most this many previous secrets sign beside the current one (so at most 5 `v1` entries): each
 * costs an HMAC per attempt and header bytes, and more than a few overlapping rotations are a
 * mistake or a script, not a receiver rollout.
 */
export const maxPreviousSecrets = 4;

const newestFirst = (a: PreviousSecret, b: PreviousSecret) => b.expiresAt - a.expiresAt;

/** The secrets a delivery made at `now` is signed with: the current one, then each unexpired previous one, newest first. */
export function activeSecrets(endpoint: EndpointSecrets, now: number): string[] {
  return [
    endpoint.secret,
    ...endpoint.previousSecrets.filter((previous) => previous.expiresAt > now).map((previous) => previous.secret),
  ];
}

/**
 * The endpoint's secrets after a rotation at `now`: `next` becomes current, the current one signs
 * until `now + graceMs`, earlier ones keep their own expiry and expired ones are forgotten. Beyond
 * `maxPreviousSecrets` the one expiring first stops signing at once instead of the rotation being
 * refused: a shop whose secret leaked must get a new one now, and a receiver still on a secret
 * replaced five times since is the one a slow rollout can best afford to lose.
 */
export function rotateSecrets(endpoint: EndpointSecrets, next: string, now: number, graceMs: number): EndpointSecrets {
  const previous = [{ secret: endpoint.secret, expiresAt: now + graceMs }, ...endpoint.previousSecrets]
    .filter((candidate) => candidate.expiresAt > now)
    .sort(newestFirst);
  return { secret: next, previousSecrets: previous.slice(0, maxPreviousSecrets) };
}
