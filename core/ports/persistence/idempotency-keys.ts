export interface IdempotencyRepository {
  find(organizationId: string, key: string): Promise<string | null>;
  /** Binds the key to the generation; false when the key was already bound (by a concurrent request). */
  bind(organizationId: string, key: string, generationId: string, at: number): Promise<boolean>;
}
