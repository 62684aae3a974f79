import type {
  AttributionCandidate,
  GenerationStatus,
  ProductInput,
  VisualizationRepository,
} from '../../../kit/plugin.ts';
import type { Executor } from '../database.ts';

/** Generations as attribution and reports read them: by store, visitor or session, and time. */
export function visualizationRepository(db: Executor): VisualizationRepository {
  return {
    async candidates(storeId, { visitorId, sessionId, from, to }) {
      if (!visitorId && !sessionId) return [];
      const rows = await db
        .selectFrom('generations')
        .select(['id', 'store_id', 'visitor_id', 'session_id', 'status', 'products', 'created_at'])
        .where('store_id', '=', storeId)
        .where('status', '=', 'complete')
        .where('created_at', '>=', from)
        .where('created_at', '<=', to)
        .where((eb) => {
          const matches = [];
          if (visitorId) matches.push(eb('visitor_id', '=', visitorId));
          if (sessionId) matches.push(eb('session_id', '=', sessionId));
          return eb.or(matches);
        })
        .execute();
      return rows.map(
        (row): AttributionCandidate => ({
          id: row.id,
          storeId: row.store_id!,
          visitorId: row.visitor_id,
          sessionId: row.session_id,
          status: row.status as GenerationStatus,
          productIds: (JSON.parse(row.products) as ProductInput[]).map((product) => String(product.productId)),
          createdAt: Number(row.created_at),
        }),
      );
    },

    async summary(storeId, { from, to }) {
      const inRange = db
        .selectFrom('generations')
        .where('store_id', '=', storeId)
        .where('status', '=', 'complete')
        .where('created_at', '>=', from)
        .where('created_at', '<', to);
      const count = await inRange
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .executeTakeFirstOrThrow();
      const visitors = await inRange
        .select('visitor_id')
        .distinct()
        .where('visitor_id', 'is not', null)
        .where('visitor_id', '!=', '')
        .execute();
      return { visualizations: Number(count.count), visitorIds: visitors.map((row) => row.visitor_id!) };
    },
  };
}
