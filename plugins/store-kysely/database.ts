import type { Kysely, Transaction } from 'kysely';

/** Row shapes as stored. Later capabilities add their tables here as they start using them. */
export interface Database {
  /** `render_retention_days` since migration 0018: null keeps renders for ever. */
  organizations: {
    id: string;
    name: string;
    credit_balance: number;
    created_at: number;
    render_retention_days?: number | null;
  };
  stores: { id: string; organization_id: string; name: string; attribution_window_days: number; created_at: number };
  api_keys: {
    id: string;
    organization_id: string;
    kind: string;
    name: string | null;
    display_prefix: string;
    key_hash: string;
    created_at: number;
    revoked_at: number | null;
    last_used_at: number | null;
  };
  credit_ledger: {
    id: string;
    organization_id: string;
    delta: number;
    balance_after: number;
    reason: string;
    reference: string | null;
    created_at: number;
    /** Assigned by the database at insert, in the order entries are written: the ledger is listed by it. */
    seq?: number;
  };
  generations: {
    id: string;
    organization_id: string;
    store_id: string | null;
    api_key_id: string | null;
    widget_id: string | null;
    status: string;
    mode: string;
    image_size: string;
    credits_charged: number;
    source_image: string;
    products: string;
    hint: string | null;
    metadata: string | null;
    image_url: string | null;
    image_variants: string | null;
    error_code: string | null;
    error_message: string | null;
    visitor_id: string | null;
    session_id: string | null;
    created_at: number;
    completed_at: number | null;
    /** Migration 0018: set when the generation was deleted (a scrubbed tombstone), with why. */
    deleted_at?: number | null;
    deletion_reason?: string | null;
    /** Migration 0021: the engine that rendered it. */
    render_engine?: string | null;
  };
  idempotency_keys: { organization_id: string; key: string; generation_id: string; created_at: number };
  /** `generation_id` since migration 0014. */
  events: {
    id: string;
    organization_id: string;
    type: string;
    body: string;
    created_at: number;
    generation_id?: string | null;
  };
  webhook_endpoints: {
    id: string;
    organization_id: string;
    url: string;
    description: string | null;
    enabled_events: string;
    status: string;
    secret: string;
    /** JSON `[{ secret, expiresAt }]`, newest first (migration 0012). */
    previous_secrets: string;
    failing_since: number | null;
    disabled_reason: string | null;
    deleted_at: number | null;
    created_at: number;
    updated_at: number;
  };
  event_deliveries: {
    id: string;
    event_id: string;
    endpoint_id: string;
    status: string;
    attempt_count: number;
    next_attempt_at: number | null;
    locked_until: number | null;
    last_error: string | null;
    created_at: number;
    updated_at: number;
  };
  delivery_attempts: {
    id: string;
    delivery_id: string;
    attempted_at: number;
    status_code: number | null;
    error: string | null;
    duration_ms: number;
    response_body: string | null;
  };
  conversions: {
    id: string;
    organization_id: string;
    store_id: string;
    order_id: string;
    visitor_id: string | null;
    session_id: string | null;
    total_cents: number;
    currency: string;
    platform: string;
    status: string;
    items: string;
    source: string;
    attributed_generation_id: string | null;
    attributed_revenue_cents: number | null;
    attributed_items: string | null;
    order_created_at: number;
    created_at: number;
    updated_at: number;
  };
  widgets: {
    id: string;
    organization_id: string;
    store_id: string;
    mode: string;
    image_size: string;
    allowed_origins: string;
    daily_generation_cap: number;
    /** Migration 0020; null: no cap. */
    daily_credit_cap: number | null;
    created_at: number;
  };
  /** What each widget used per UTC day (migration 0020). */
  widget_daily_usage: { widget_id: string; day: number; generations: number; credits: number };
  visitor_identities: {
    store_id: string;
    visitor_id: string;
    organization_id: string;
    session_id: string | null;
    user_id: string;
    traits: string;
    created_at: number;
    updated_at: number;
  };
  users: {
    id: string;
    organization_id: string;
    email: string;
    role: string;
    password_hash: string | null;
    password_set_at: number | null;
    activated_at: number | null;
    created_at: number;
  };
  user_tokens: {
    id: string;
    user_id: string;
    organization_id: string;
    purpose: string;
    token_hash: string;
    created_at: number;
    expires_at: number;
    used_at: number | null;
  };
  sessions: {
    id: string;
    user_id: string;
    organization_id: string;
    token_hash: string;
    created_at: number;
    last_seen_at: number;
    expires_at: number;
    revoked_at: number | null;
    user_agent: string | null;
    ip_address: string | null;
  };
  jobs: {
    id: string;
    kind: string;
    payload: string;
    run_at: number;
    attempts: number;
    failures: number;
    locked_by: string | null;
    locked_until: number | null;
    last_error: string | null;
    created_at: number;
  };
  /** Migration 0015: when each periodic task may run next, in the database's time. */
  scheduled_runs: { name: string; next_run_at: number };
  /** Migration 0015: jobs the queue gave up after `maxAttempts` failures. */
  dead_jobs: {
    id: string;
    kind: string;
    payload: string;
    attempts: number;
    failures: number;
    last_error: string | null;
    created_at: number;
    died_at: number;
  };
  processes: ProcessRow;
  /** Migration 0019: the audit record of each visitor erasure (nothing about the visitor in it). */
  visitor_erasures: {
    id: string;
    organization_id: string;
    status: string;
    requested_by_type: string;
    requested_by_id: string;
    requested_at: number;
    completed_at: number | null;
    generations_deleted: number;
    identities_deleted: number;
    conversions_unlinked: number;
  };
  /** Migration 0019: a pending erasure's visitor, deleted when it completes. */
  visitor_erasure_subjects: { erasure_id: string; organization_id: string; visitor_id: string };
  /** Migration 0019: session ids a pending erasure collected, deleted as their conversions are unlinked or when it completes. */
  visitor_erasure_sessions: { erasure_id: string; session_id: string };
}

/** Migration 0016: running `serve` and `worker` processes; `details` is JSON. */
export interface ProcessRow {
  id: string;
  hostname: string;
  role: string;
  pid: number;
  started_at: number;
  seen_at: number;
  details: string;
}

/** A connection pool or a transaction: repositories work the same on either. */
export type Executor = Kysely<Database> | Transaction<Database>;
