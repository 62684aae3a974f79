import type { Organization, OrganizationRepository } from '../../../kit/plugin.ts';
import type { Database, Executor } from '../database.ts';

const toOrganization = (row: Database['organizations']): Organization => ({
  id: row.id,
  name: row.name,
  creditBalance: Number(row.credit_balance),
  renderRetentionDays:
    row.render_retention_days === null || row.render_retention_days === undefined
      ? null
      : Number(row.render_retention_days),
  createdAt: Number(row.created_at),
});

export function organizationRepository(db: Executor): OrganizationRepository {
  return {
    async create(org) {
      const row = {
        id: org.id,
        name: org.name,
        credit_balance: 0,
        created_at: org.createdAt,
        render_retention_days: null,
      };
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
    async setRenderRetention(id, days) {
      await db.updateTable('organizations').set({ render_retention_days: days }).where('id', '=', id).execute();
      const row = await db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toOrganization(row) : null;
    },
    async withRenderRetention() {
      const rows = await db
        .selectFrom('organizations')
        .select(['id', 'render_retention_days'])
        .where('render_retention_days', 'is not', null)
        .orderBy('id')
        .execute();
      return rows.map((row) => ({ id: row.id, renderRetentionDays: Number(row.render_retention_days) }));
    },
  };
}
