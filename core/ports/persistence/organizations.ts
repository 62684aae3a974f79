import type { Organization } from '../../domain/organization.ts';

export interface OrganizationRepository {
  create(org: { id: string; name: string; createdAt: number }): Promise<Organization>;
  get(id: string): Promise<Organization | null>;
  list(): Promise<Organization[]>;
}
