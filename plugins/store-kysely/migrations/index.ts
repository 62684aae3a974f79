import type { Migration, MigrationProvider } from 'kysely';
import * as tenantsAndKeys from './0001-tenants-and-keys.ts';
import * as generationsWebhooksConversions from './0002-generations-webhooks-conversions.ts';
import * as jobs from './0003-jobs.ts';
import * as webhookEndpointState from './0004-webhook-endpoint-state.ts';
import * as widgetsAttribution from './0005-widgets-attribution.ts';
import * as jobReadiness from './0006-job-readiness.ts';
import * as dropUnusedDeliveryIndex from './0007-drop-unused-delivery-index.ts';
import * as partialGenerationIndexes from './0008-partial-generation-indexes.ts';
import * as jobFailures from './0009-job-failures.ts';
import * as creditLedgerSequence from './0010-credit-ledger-sequence.ts';
import * as webhookPreviousSecrets from './0012-webhook-previous-secrets.ts';
import * as dashboardAccounts from './0013-dashboard-accounts.ts';
import * as dashboardIndexes from './0014-dashboard-indexes.ts';
import * as retentionDeadLettersSchedules from './0015-retention-dead-letters-schedules.ts';
import * as processRegistry from './0016-process-registry.ts';
import * as limits from './0017-limits.ts';
import * as generationDeletion from './0018-generation-deletion.ts';
import * as visitorErasures from './0019-visitor-erasures.ts';
import * as widgetCreditCap from './0020-widget-credit-cap.ts';
import * as generationRenderEngine from './0021-generation-render-engine.ts';
import * as userActivation from './0022-user-activation.ts';

/**
 * Migrations are imported statically rather than read from a folder, so they load the same
 * under tsx, a bundler or a compiled build. Names sort in the order they must run; never
 * edit one that has shipped — add the next.
 */
const migrations: Record<string, Migration> = {
  '0001-tenants-and-keys': tenantsAndKeys,
  '0002-generations-webhooks-conversions': generationsWebhooksConversions,
  '0003-jobs': jobs,
  '0004-webhook-endpoint-state': webhookEndpointState,
  '0005-widgets-attribution': widgetsAttribution,
  '0006-job-readiness': jobReadiness,
  '0007-drop-unused-delivery-index': dropUnusedDeliveryIndex,
  '0008-partial-generation-indexes': partialGenerationIndexes,
  '0009-job-failures': jobFailures,
  '0010-credit-ledger-sequence': creditLedgerSequence,
  '0012-webhook-previous-secrets': webhookPreviousSecrets,
  '0013-dashboard-accounts': dashboardAccounts,
  '0014-dashboard-indexes': dashboardIndexes,
  '0015-retention-dead-letters-schedules': retentionDeadLettersSchedules,
  '0016-process-registry': processRegistry,
  '0017-limits': limits,
  '0018-generation-deletion': generationDeletion,
  '0019-visitor-erasures': visitorErasures,
  '0020-widget-credit-cap': widgetCreditCap,
  '0021-generation-render-engine': generationRenderEngine,
  '0022-user-activation': userActivation,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
