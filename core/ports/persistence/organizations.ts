import type { Organization } from '../../domain/organization.ts';

export interface OrganizationRepository {
  create(org: { id: string; name: string; createdAt: number }): Promise<Organization>;
  get(id: string): Promise<Organization | null>;
  list(): Promise<Organization[]>;
  /** Sets how many days the organization's renders are kept (null: for ever); null when there is no such organization. */
  setRenderRetention(id: string, days: number | null): Promise<Organization | null>;
  /** Every organization that keeps renders for a limited time, for the retention sweep. */
  withRenderRetention(): Promise<Array<{ id: string; renderRetentionDays: number }>>;
}
