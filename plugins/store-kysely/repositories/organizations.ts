import type { Organization, OrganizationRepository } from '../../../kit/plugin.ts';
import type { Database, Executor } from '../database.ts';

const toOrganization = (row: Database['organizations']): Organization => ({
  id: row.id,
  name: row.name,
  creditBalance: Number(row.credit_balance),
  createdAt: Number(row.created_at),
});

export function organizationRepository(db: Executor): OrganizationRepository {
  return {
    async create(org) {
      const row = { id: org.id, name: org.name, credit_balance: 0, created_at: org.createdAt };
      await db.insertInto('organizations').values(row).execute();
      return toOrganization(row);
    },
    async get(id) {
      const row = await db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toOrganization(row) : null;
    },
    async list() {
      const rows = await db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toOrganization);
    },
  };
}
