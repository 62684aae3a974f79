/**
 * Generated from docs/openapi.json by openapi-typescript: do not edit.
 * Regenerate with `npm run client:types` after `npm run openapi`.
 */

export interface paths {
    "/v1/generations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List generations
         * @description Newest first. The filters combine, and page like the unfiltered list.
         */
        get: operations["listGenerations"];
        put?: never;
        /**
         * Create a generation
         * @description Starts rendering a photo with 1 to 3 products and charges its credits (1K = 1, 2K = 2, 4K = 3). Answers 202 at once with `status: processing`; the result arrives by the `generation.completed` or `generation.failed` webhook, or by polling. An `Idempotency-Key` bound to a generation that was deleted since answers 410 (`generation_deleted`, or `generation_expired` when the render retention deleted it): nothing new is made or charged.
         */
        post: operations["createGeneration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/generations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a generation
         * @description A deleted generation answers 404 `resource_missing`, like one that never was; one the organization's render retention deleted answers 410 `generation_expired`.
         */
        get: operations["getGeneration"];
        put?: never;
        post?: never;
        /**
         * Delete a generation
         * @description Deletes the generation with its original image, every variant and the uploaded photo: the image URLs answer 404 within moments (a CDN in front of the bucket may serve cached copies until they expire), and GET answers 404. A `processing` generation is deleted too: its render is discarded, never stored, and its credits are refunded; a finished one is not refunded. Deleting a deleted generation answers 200 again. Event bodies already sent or queued keep the URLs. With the session cookie, admins only.
         */
        delete: operations["deleteGeneration"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stores": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List stores
         * @description The stores (storefronts) of your organization, newest first.
         */
        get: operations["listStores"];
        put?: never;
        /**
         * Create a store
         * @description Another storefront of your organization; its id goes into widgets, conversions and analytics.
         */
        post: operations["createStore"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get the credit balance */
        get: operations["getCreditBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credits/ledger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List credit ledger entries
         * @description Every change to the balance (debits for generations, refunds of failed ones, grants), newest first.
         */
        get: operations["listCreditLedgerEntries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/organization": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the organization
         * @description The caller's organization and its settings.
         */
        get: operations["getOrganization"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update the organization's settings
         * @description Sets `renderRetentionDays`: each render (original, variants, uploaded photo) is deleted that many days after it was made, by the retention sweep (hourly by default), and GET then answers 410 `generation_expired`; null keeps renders for ever (the default). A shorter period applies to renders already made. With the session cookie, admins only.
         */
        patch: operations["updateOrganization"];
        trace?: never;
    };
    "/v1/webhook-endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook endpoints
         * @description Newest first.
         */
        get: operations["listWebhookEndpoints"];
        put?: never;
        /**
         * Create a webhook endpoint
         * @description Events are signed with the returned `secret` (Standard Webhooks); it is shown only here and on rotation.
         */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a webhook endpoint */
        get: operations["getWebhookEndpoint"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Pending deliveries to it are dropped.
         */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        /**
         * Update a webhook endpoint
         * @description Changes any of `url`, `enabledEvents`, `description`, `status`; enabling a disabled endpoint clears `disabledReason`.
         */
        patch: operations["updateWebhookEndpoint"];
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a webhook endpoint's secret
         * @description Makes a new secret; for 24 hours deliveries carry signatures of both, so you can deploy the new one without losing events.
         */
        post: operations["rotateWebhookEndpointSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List events
         * @description The events sent to your webhook endpoints, newest first, exactly as deliveries carry them.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an event and its deliveries */
        get: operations["getEvent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{id}/attempts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an event's delivery attempts
         * @description Every HTTP attempt of every delivery of the event, oldest first, in one page.
         */
        get: operations["listEventAttempts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{id}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resend an event
         * @description Queues a new delivery of the event to one endpoint, or to every enabled endpoint subscribed to it. The body is optional.
         */
        post: operations["resendEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream events as they happen (Server-Sent Events)
         * @description The organization's events from now on, as `text/event-stream`: one message per event with `id:` the event id, `event:` its type and `data:` the event exactly as webhook deliveries carry it. A comment line comes at least every 15 s. A stream ends after 30 minutes and when the server stops; reconnect with `Last-Event-ID` to continue after the last event received. At most 5 streams may be open at once per API key. For development (`visualizer listen` forwards the stream to a local URL); production receivers use webhook endpoints.
         */
        get: operations["streamEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/webhooks/orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report an order (order webhook)
         * @description Your shop's server reports an order, or a later change to its status, with a conversion key. Reporting the same (storeId, orderId) again updates it; an order never counts twice.
         */
        post: operations["reportOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/collect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Collect a browser event (keyless)
         * @description What the browser SDK's `track('$conversion', …)` and `identify()` send; identified by store id, no key. JSON sent as `text/plain` (no preflight, as `sendBeacon` does) or `application/json`; at most 64 KB.
         */
        post: operations["collectBrowserEvent"];
        delete?: never;
        /** CORS preflight of the collector */
        options: operations["preflightCollect"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/conversions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List conversions
         * @description Orders reported by your server and the browser SDK, with their attribution, newest first.
         */
        get: operations["listConversions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/analytics/daily": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get daily figures
         * @description Per UTC day: generations by status, credits spent, conversions, attributed conversions and attributed revenue per currency, every day of the range present. The range is rounded out to whole UTC days (`from` down to its midnight, `to` up to the next) and spans at most 366 days; by default the 30 days ending with today. The organization's figures, or one store's (a store's generations are those made through its widgets).
         */
        get: operations["getAnalyticsDaily"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/analytics/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a store's analytics summary
         * @description Visualizations, conversions and attributed revenue over [from, to); the last 30 days by default.
         */
        get: operations["getAnalyticsSummary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/widgets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List widgets
         * @description Newest first.
         */
        get: operations["listWidgets"];
        put?: never;
        /**
         * Create a widget
         * @description An embeddable widget of one store: shoppers' pages on `allowedOrigins` may make up to `dailyGenerationCap` generations (default 500) a day (UTC) without a key, spending at most `dailyCreditCap` credits a day (default null: no cap; at least one generation's cost at the widget's `imageSize`, else 400 `parameter_invalid`). Both caps are counted in the transaction that charges a generation, so they hold across every process; a failed generation's refunded credits are not spent.
         */
        post: operations["createWidget"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/widgets/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a widget */
        get: operations["getWidget"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update a widget
         * @description Changes the fields sent; the others keep their values. Pages see the change on their next call. `dailyCreditCap: null` removes the credit cap; a cap below one generation's cost at the widget's (new) `imageSize` is 400 `parameter_invalid`. A new cap applies to today's use as already counted.
         */
        patch: operations["updateWidget"];
        trace?: never;
    };
    "/api/widgets/{widgetId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A widget's public configuration (keyless)
         * @description What the widget's script needs to know: its mode and image size. Called from pages on the widget's allowed origins.
         */
        get: operations["getWidgetConfig"];
        put?: never;
        post?: never;
        delete?: never;
        /** CORS preflight of /api/widgets/{widgetId} */
        options: operations["preflightWidgetConfig"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/widgets/{widgetId}/generations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a shopper's generation (keyless)
         * @description Mode and size come from the widget; credits from the widget's organization. Within the widget's daily caps, counted per UTC day: 429 `daily_cap_reached` past `dailyGenerationCap`, 429 `daily_credit_cap_reached` when the generation's credits would pass `dailyCreditCap`; both with `Retry-After` until midnight UTC.
         */
        post: operations["createWidgetGeneration"];
        delete?: never;
        /** CORS preflight of /api/widgets/{widgetId}/generations */
        options: operations["preflightWidgetGenerations"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/widgets/{widgetId}/generations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a shopper's generation (keyless)
         * @description Only for the visitor it was made for.
         */
        get: operations["getWidgetGeneration"];
        put?: never;
        post?: never;
        delete?: never;
        /** CORS preflight of /api/widgets/{widgetId}/generations/{id} */
        options: operations["preflightWidgetGeneration"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/visitors/{visitorId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get what is held about a visitor (access request)
         * @description Everything your organization holds about a widget visitor, for a GDPR Article 15 access request: the generations made through your widgets with this visitor id (with their images' URLs and session ids), its identities (the SDK's `identify` calls: your user id and traits), and the conversions reported with its visitor id or with a session id of those generations, identities and conversions. At most `limit` (100) of each kind, newest first, with `total` counting them all (a visitor id anyone can send may have made many generations): `GET /v1/visitors/{visitorId}/generations`, `/identities` and `/conversions` page through all of them. An unknown visitor answers 200 with nothing listed. `pendingErasure` is an erasure of the visitor still under way. Viewers may call it.
         */
        get: operations["getVisitor"];
        put?: never;
        post?: never;
        /**
         * Erase a visitor (erasure request)
         * @description Starts the erasure of a widget visitor, for a GDPR Article 17 request: its generations are deleted (their images with them: the URLs answer 404), its identities are deleted, and the conversions reported with its visitor id or one of its session ids are kept for your revenue figures with both ids removed. It runs in the background, in batches that survive a restart; poll `GET /v1/visitor-erasures/{id}` until `status` is `complete`. While an erasure of the visitor is pending, asking again answers that erasure (and queues its work again if it had stopped after repeated failures). The erasure record keeps who asked, when, and how much of each kind it erased, never the visitor's ids. Admins only in the dashboard.
         */
        delete: operations["eraseVisitor"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/visitors/{visitorId}/generations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a visitor's generations
         * @description All the generations (made through your widgets with this visitor id) held about a widget visitor, newest first, a page at a time: `GET /v1/visitors/{visitorId}` lists at most 100 of each kind, so follow `has_more` here to hand over a complete copy. An unknown visitor answers an empty page. Viewers may call it.
         */
        get: operations["listVisitorGenerations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/visitors/{visitorId}/identities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a visitor's identities
         * @description All the identities (the SDK's `identify` calls, one per store) held about a widget visitor, the most recently identified first, a page at a time: `GET /v1/visitors/{visitorId}` lists at most 100 of each kind, so follow `has_more` here to hand over a complete copy. An unknown visitor answers an empty page. Viewers may call it.
         */
        get: operations["listVisitorIdentities"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/visitors/{visitorId}/conversions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a visitor's conversions
         * @description All the conversions (orders reported with this visitor id, or with a session id of its generations, identities or conversions) held about a widget visitor, the newest order first, a page at a time: `GET /v1/visitors/{visitorId}` lists at most 100 of each kind, so follow `has_more` here to hand over a complete copy. An unknown visitor answers an empty page. Viewers may call it.
         */
        get: operations["listVisitorConversions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/visitor-erasures": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List visitor erasures
         * @description Your erasures, the most recently requested first: the audit trail of erasure requests, without the visitors' ids.
         */
        get: operations["listVisitorErasures"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/visitor-erasures/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a visitor erasure */
        get: operations["getVisitorErasure"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The current session
         * @description Who is signed in, to which organization, and the CSRF token to send with changes.
         */
        get: operations["getSession"];
        put?: never;
        /**
         * Sign in to the dashboard
         * @description With an email and password, or with the `token` of a one-time sign-in link. Sets the session cookie. An unknown email and a wrong password get the same answer (401 `invalid_credentials`). Limited per email address and per client address (`accounts.*` in the config); refused from a page of another origin.
         */
        post: operations["createSession"];
        /**
         * Sign out
         * @description Ends the session and clears its cookie.
         */
        delete: operations["deleteSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invitations/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept an invitation
         * @description Sets the invited user's password with the invitation's one-time `token` and signs them in (other sessions of the user end). A link works once.
         */
        post: operations["acceptInvitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users
         * @description The dashboard users of your organization, invited ones included, oldest first. Admins only.
         */
        get: operations["listUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a user
         * @description Admins only. Deletes the user with their links and sessions; never the last `active` admin (one who has signed in, by password or by sign-in link): 409 `last_admin`.
         */
        delete: operations["deleteUser"];
        options?: never;
        head?: never;
        /**
         * Change a user's role
         * @description Admins only. The organization always keeps an admin who can sign in, that is an `active` admin: one who has signed in, by password or by sign-in link (409 `last_admin`).
         */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/v1/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Invite a user
         * @description Admins only. Creates the user (status `invited`) and a one-time link, valid 7 days, to choose a password: no mail is sent, hand the `url` over yourself. Inviting an invited user again issues a new link; an email address that already belongs to a user is 409 `email_taken`.
         */
        post: operations["createInvitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sessions
         * @description Your own sessions that have not ended, the 100 most recent (`has_more` says whether there are more); an admin may ask for another user's of the organization.
         */
        get: operations["listSessions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a session
         * @description Ends one of your sessions (its browser is signed out), or for an admin any session of the organization. Revoking the current one also clears its cookie.
         */
        delete: operations["deleteSessionById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys
         * @description Secret and conversion keys of your organization, revoked ones included, newest first. Any dashboard user.
         */
        get: operations["listApiKeys"];
        put?: never;
        /**
         * Create an API key
         * @description Admins only. The answer holds the key itself, shown this once.
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Admins only. The key stops working at once; revoking it again keeps the first time.
         */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Not offered: the MCP server is stateless
         * @description The server keeps no sessions (each POST stands alone), so there is no stream to open and no session to end: 405, as the Streamable HTTP transport allows.
         */
        get: operations["mcpStream"];
        put?: never;
        /**
         * Model Context Protocol (Streamable HTTP)
         * @description The tools `create_generation`, `get_generation`, `list_generations` and `get_credit_balance` for AI assistants, over MCP's Streamable HTTP transport in stateless mode with JSON answers. Authenticated and rate limited like `/v1`: a tool call takes the `create` budget (create_generation) or the `read` budget (the others); any other message takes one `read`. A tool's error comes back as a tool result with `isError: true` carrying the error envelope; the errors below answer the HTTP request itself. The body is limited like `POST /v1/generations`'s. See docs/mcp.md.
         */
        post: operations["mcp"];
        /**
         * Not offered: the MCP server is stateless
         * @description The server keeps no sessions (each POST stands alone), so there is no stream to open and no session to end: 405, as the Streamable HTTP transport allows.
         */
        delete: operations["mcpEndSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness: the server answers
         * @description Answers as soon as the server accepts requests; it checks nothing else. For a load balancer or an orchestrator.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: the server and its database answer
         * @description Also pings the database: route traffic here only while it answers 200.
         */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics of this process
         * @description For the operator's Prometheus, not the public: HTTP requests by route and status, job queue depth and lag, renders and webhook deliveries by outcome, database pool usage, and the process's CPU, memory and event loop (see docs/operations.md, `Metrics and logs`). With `metrics.token` configured, send it as `Authorization: Bearer <token>`; without one, keep this path off the public load balancer. Absent (404) when `metrics.enabled` is false.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/cdn/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A public image (generated images and their variants)
         * @description Served by the app only when the CDN adapter is `local`; otherwise the images live on your CDN and this answers 404. `key` may contain slashes. Images never change under their key, so they are cached for a year.
         */
        get: operations["getCdnImage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This document as a browsable reference
         * @description An HTML page that draws `/openapi.json` with Swagger UI, served by the service itself (no CDN; it works offline). It has no inline script or style and is sent with a `Content-Security-Policy` allowing only this origin (and `data:` images). Its URLs are relative, so it works under a path prefix. Cached 5 minutes. `/docs/` redirects (301) here.
         */
        get: operations["getReferencePage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/assets/{version}/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A script, style sheet or icon of the reference page
         * @description Swagger UI's files from the `swagger-ui-dist` package and the page's own initializer. `version` is a hash of them all, so they are cached for a year (`immutable`); the page names the current one, and any other version or file is 404. Text is gzipped when the request accepts it.
         */
        get: operations["getReferencePageAsset"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/widgets/embed.js": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The browser SDK loader
         * @description The script every shop page includes: `<script src="…/widgets/embed.js" async></script>`. Cached 5 minutes and revalidated by `ETag`, so a release reaches pages quickly.
         */
        get: operations["getSdkLoader"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/widgets/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The widget UI bundle the loader fetches
         * @description Named by its content hash (`widget.<hash>.js`) and cached for a year; the loader knows the current name. Any other name is 404.
         */
        get: operations["getSdkWidgetBundle"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This OpenAPI 3.1 document
         * @description The same bytes as `docs/openapi.json` in the repository. Paths are relative to the service's public URL.
         */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "generation.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * generation.completed
         * @description A generation finished: `data.imageUrl` and `data.imageVariants` are set. Answer any 2xx quickly (within the configured delivery timeout, 10 s by default); anything else is retried with backoff.
         */
        post: operations["generationCompletedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "generation.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * generation.failed
         * @description A generation failed and its credits were refunded: `data.error` says why. Answer any 2xx quickly (within the configured delivery timeout, 10 s by default); anything else is retried with backoff.
         */
        post: operations["generationFailedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Error: {
            error: {
                /** @enum {string} */
                type: "authentication_error" | "authorization_error" | "invalid_request_error" | "rate_limit_error" | "not_found_error" | "conflict_error" | "api_error";
                /** @description Stable, machine-readable: branch on it. Each operation lists the codes it can answer per status. */
                code: string;
                /** @description For people; may change. */
                message: string;
                /** @description The request field or parameter at fault, when there is one. */
                param: string | null;
            };
        };
        Product: {
            productId: string | number;
            productTitle: string;
            /** Format: uri */
            imageUrl: string;
            /** Format: uri */
            productUrl?: string;
            dimensions?: {
                width?: number;
                height?: number;
                depth?: number;
                /**
                 * @default cm
                 * @enum {string}
                 */
                unit?: "cm" | "in";
            };
        };
        ImageVariants: {
            list: {
                /** Format: uri */
                url: string;
                width: number;
            };
            card: {
                /** Format: uri */
                url: string;
                width: number;
            };
            detail: {
                /** Format: uri */
                url: string;
                width: number;
            };
        };
        Generation: {
            /** @description An id issued by the service (`agen_…`). */
            id: string;
            /** @constant */
            object: "generation";
            /** @enum {string} */
            status: "processing" | "complete" | "failed";
            /** @enum {string} */
            mode: "virtual-try-on" | "room-visualizer";
            /** @enum {string} */
            imageSize: "1K" | "2K" | "4K";
            /** @description The full-size image once complete; null before. */
            imageUrl: string | null;
            imageVariants: components["schemas"]["ImageVariants"] | null;
            products: components["schemas"]["Product"][];
            hint: string | null;
            error: {
                code: string;
                message: string;
            } | null;
            metadata: {
                [key: string]: string;
            } | null;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
            completedAt: string | null;
        };
        DeletedGeneration: {
            /** @description An id issued by the service (`agen_…`). */
            id: string;
            /** @constant */
            object: "generation";
            /** @constant */
            deleted: true;
        };
        Organization: {
            /** @description An id issued by the service (`org_…`). */
            id: string;
            /** @constant */
            object: "organization";
            name: string;
            /** @description Days a render (its original, variants and uploaded photo) is kept after it was made; then it is deleted and GET answers 410 `generation_expired`. Null (the default): kept for ever. */
            renderRetentionDays: number | null;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
        };
        Store: {
            /** @description An id issued by the service (`store_…`). */
            id: string;
            /** @constant */
            object: "store";
            name: string;
            attributionWindowDays: number;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
        };
        CreditBalance: {
            /** @constant */
            object: "credit_balance";
            /** @description Credits left; a 1K image costs 1, 2K 2, 4K 3. */
            balance: number;
        };
        CreditLedgerEntry: {
            /** @description An id issued by the service (`cle_…`). */
            id: string;
            /** @constant */
            object: "credit_ledger_entry";
            /** @description Positive for grants and refunds, negative for debits. */
            delta: number;
            balanceAfter: number;
            /** @description `generation`, `generation_refund`, or the reason given with a grant. */
            reason: string;
            /** @description What the entry is about (a generation id); null for grants. */
            reference: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
        };
        WebhookEndpoint: {
            /** @description An id issued by the service (`whe_…`). */
            id: string;
            /** @constant */
            object: "webhook_endpoint";
            /** Format: uri */
            url: string;
            description: string | null;
            enabledEvents: ("*" | "generation.completed" | "generation.failed")[];
            /** @enum {string} */
            status: "enabled" | "disabled";
            disabledReason: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            updatedAt: string;
        };
        WebhookEndpointWithSecret: {
            /** @description An id issued by the service (`whe_…`). */
            id: string;
            /** @constant */
            object: "webhook_endpoint";
            /** Format: uri */
            url: string;
            description: string | null;
            enabledEvents: ("*" | "generation.completed" | "generation.failed")[];
            /** @enum {string} */
            status: "enabled" | "disabled";
            disabledReason: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            updatedAt: string;
            /** @description The signing secret (`whsec_` + base64): shown only when made. */
            secret: string;
        };
        RotatedWebhookEndpoint: {
            /** @description An id issued by the service (`whe_…`). */
            id: string;
            /** @constant */
            object: "webhook_endpoint";
            /** Format: uri */
            url: string;
            description: string | null;
            enabledEvents: ("*" | "generation.completed" | "generation.failed")[];
            /** @enum {string} */
            status: "enabled" | "disabled";
            disabledReason: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            updatedAt: string;
            /** @description The signing secret (`whsec_` + base64): shown only when made. */
            secret: string;
            /**
             * Format: date-time
             * @description Until then deliveries are signed with the old secret as well.
             */
            previousSecretExpiresAt: string;
        };
        DeletedWebhookEndpoint: {
            /** @description An id issued by the service (`whe_…`). */
            id: string;
            /** @constant */
            object: "webhook_endpoint";
            /** @constant */
            deleted: true;
        };
        Event: {
            /** @description An id issued by the service (`evt_…`). */
            id: string;
            /** @enum {string} */
            type: "generation.completed" | "generation.failed";
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
            data: components["schemas"]["Generation"];
        };
        EventWithDeliveries: {
            /** @description An id issued by the service (`evt_…`). */
            id: string;
            /** @enum {string} */
            type: "generation.completed" | "generation.failed";
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
            data: components["schemas"]["Generation"];
            deliveries: components["schemas"]["WebhookDelivery"][];
        };
        WebhookDelivery: {
            /** @description An id issued by the service (`whd_…`). */
            id: string;
            /** @constant */
            object: "webhook_delivery";
            endpointId: string;
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed";
            attemptCount: number;
            nextAttemptAt: string | null;
            lastError: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            updatedAt: string;
        };
        WebhookAttempt: {
            /** @description An id issued by the service (`wha_…`). */
            id: string;
            /** @constant */
            object: "webhook_attempt";
            deliveryId: string;
            endpointId: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            attemptedAt: string;
            statusCode: number | null;
            error: string | null;
            durationMs: number;
            responseBody: string | null;
        };
        Conversion: {
            /** @description An id issued by the service (`conv_…`). */
            id: string;
            /** @constant */
            object: "conversion";
            orderId: string;
            storeId: string;
            visitorId: string | null;
            sessionId: string | null;
            totalCents: number;
            currency: string;
            /** @enum {string} */
            status: "pending" | "processing" | "on-hold" | "completed" | "refunded" | "cancelled";
            items: {
                productId: string;
                quantity: number;
                priceCents: number;
                totalCents: number;
            }[];
            /** @enum {string} */
            source: "server" | "browser" | "both";
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            orderCreatedAt: string;
            attribution: {
                generationId: string;
                attributedRevenueCents: number;
                attributedItems: string[];
            } | null;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            updatedAt: string;
        };
        AnalyticsSummary: {
            /** @constant */
            object: "analytics_summary";
            storeId: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            from: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            to: string;
            visualizations: number;
            uniqueVisitorsVisualized: number;
            conversions: number;
            attributedConversions: number;
            /** @description Attributed revenue in cents, per currency (`{ "USD": 3000 }`); currencies are never added together. */
            attributedRevenue: {
                [key: string]: number;
            };
            conversionRate: {
                /** @description A fraction from 0 to 1, rounded to 4 places; null when there was no one to count. */
                visualized: number | null;
                /** @description A fraction from 0 to 1, rounded to 4 places; null when there was no one to count. */
                notVisualized: number | null;
            };
            visitors: {
                visualized: number;
                visualizedConverted: number;
                notVisualized: number;
                notVisualizedConverted: number;
            };
        };
        AnalyticsDay: {
            /** @description The UTC day, `YYYY-MM-DD`. */
            date: string;
            /** @description Generations created that day, by their status now. */
            generations: {
                processing: number;
                complete: number;
                failed: number;
            };
            /** @description Credits charged for that day's generations; a failed one's are refunded, so not counted. */
            creditsSpent: number;
            /** @description Orders placed that day (by `orderCreatedAt`), refunded and cancelled ones left out. */
            conversions: number;
            /** @description Those of them attributed to a generation. */
            attributedConversions: number;
            /** @description Attributed revenue in cents (minor units), per currency (`{ "USD": 3000 }`); currencies are never added together. */
            attributedRevenue: {
                [key: string]: number;
            };
        };
        AnalyticsDaily: {
            /** @constant */
            object: "analytics_daily";
            /** @description The store asked for; null for the whole organization. */
            storeId: string | null;
            /**
             * Format: date-time
             * @description The range's start, rounded down to midnight UTC.
             */
            from: string;
            /**
             * Format: date-time
             * @description The range's end (exclusive), rounded up to midnight UTC.
             */
            to: string;
            /** @description One entry per UTC day of the range, oldest first, days without activity included (zeros). */
            data: components["schemas"]["AnalyticsDay"][];
        };
        Widget: {
            /** @description An id issued by the service (`wdg_…`). */
            id: string;
            /** @constant */
            object: "widget";
            storeId: string;
            /** @enum {string} */
            mode: "virtual-try-on" | "room-visualizer";
            /** @enum {string} */
            imageSize: "1K" | "2K" | "4K";
            allowedOrigins: string[];
            /** @description Generations the widget may make per UTC day, failed ones included. */
            dailyGenerationCap: number;
            /** @description Credits the widget's generations may spend per UTC day; a failed generation's are refunded, so not spent. null: no cap. */
            dailyCreditCap: number | null;
            /** @description What the widget used since midnight UTC. */
            usageToday: {
                /** @description Today, the UTC day, `YYYY-MM-DD`. */
                date: string;
                /** @description Generations made today, failed ones included: what `dailyGenerationCap` counts. */
                generations: number;
                /** @description Credits spent today (charged, less refunded): what `dailyCreditCap` counts. */
                credits: number;
            };
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
        };
        PublicWidget: {
            /** @description An id issued by the service (`wdg_…`). */
            id: string;
            /** @constant */
            object: "widget";
            /** @enum {string} */
            mode: "virtual-try-on" | "room-visualizer";
            /** @enum {string} */
            imageSize: "1K" | "2K" | "4K";
        };
        User: {
            /** @description An id issued by the service (`usr_…`). */
            id: string;
            /** @constant */
            object: "user";
            email: string;
            /** @enum {string} */
            role: "admin" | "viewer";
            /**
             * @description `invited` until the user first signs in (by setting a password through their invitation, or by a sign-in link); `active` after.
             * @enum {string}
             */
            status: "active" | "invited";
            /** @description When an invited user's newest unused invitation expires; null for active users. */
            invitationExpiresAt: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
        };
        DeletedUser: {
            /** @description An id issued by the service (`usr_…`). */
            id: string;
            /** @constant */
            object: "user";
            /** @constant */
            deleted: true;
        };
        CurrentSession: {
            /** @description An id issued by the service (`ses_…`). */
            id: string;
            /** @constant */
            object: "session";
            user: components["schemas"]["User"];
            organization: {
                /** @description An id issued by the service (`org_…`). */
                id: string;
                name: string;
            };
            /** @description Send it as `X-CSRF-Token` with every request made with the session cookie other than GET, HEAD and OPTIONS. */
            csrfToken: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description The session ends then at the latest; after 7 days unused, sooner.
             */
            expiresAt: string;
        };
        Session: {
            /** @description An id issued by the service (`ses_…`). */
            id: string;
            /** @constant */
            object: "session";
            /** @description An id issued by the service (`usr_…`). */
            userId: string;
            /** @description Whether this is the session of the request. */
            current: boolean;
            userAgent: string | null;
            ipAddress: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            lastSeenAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            expiresAt: string;
        };
        Invitation: {
            /** @constant */
            object: "invitation";
            /** @description An id issued by the service (`usr_…`). */
            userId: string;
            email: string;
            /** @enum {string} */
            role: "admin" | "viewer";
            /**
             * Format: uri
             * @description The one-time link that lets the invited person choose a password: shown once, hand it over yourself.
             */
            url: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            expiresAt: string;
        };
        ApiKey: {
            /** @description An id issued by the service (`key_…`). */
            id: string;
            /** @constant */
            object: "api_key";
            /**
             * @description `secret` keys call `/v1`; `conversion` keys only report orders.
             * @enum {string}
             */
            kind: "secret" | "conversion";
            name: string | null;
            /** @description The first characters of the key, to tell keys apart. */
            displayPrefix: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
            /** @description Refreshed at most once a minute. */
            lastUsedAt: string | null;
            revokedAt: string | null;
        };
        ApiKeyWithSecret: {
            /** @description An id issued by the service (`key_…`). */
            id: string;
            /** @constant */
            object: "api_key";
            /**
             * @description `secret` keys call `/v1`; `conversion` keys only report orders.
             * @enum {string}
             */
            kind: "secret" | "conversion";
            name: string | null;
            /** @description The first characters of the key, to tell keys apart. */
            displayPrefix: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
            /** @description Refreshed at most once a minute. */
            lastUsedAt: string | null;
            revokedAt: string | null;
            /** @description The key itself: shown this once, stored only as a hash. */
            key: string;
        };
        Visitor: {
            /** @constant */
            object: "visitor";
            visitorId: string;
            /** @description The most items listed of each kind (100); `total` counts them all. */
            limit: number;
            /** @description The visitor's generations (made through a widget with this visitor id). */
            generations: {
                /** @description How many generations (made through a widget with this visitor id) there are in all. */
                total: number;
                /** @description Whether there are more than listed (`total` > the length of `data`): `GET /v1/visitors/{visitorId}/generations` pages through them all. */
                has_more: boolean;
                /** @description At most `limit` of them, newest first. */
                data: components["schemas"]["VisitorGeneration"][];
            };
            /** @description The visitor's identities (the SDK's `identify` calls), one per store. */
            identities: {
                /** @description How many identities (the SDK's `identify` calls), one per store there are in all. */
                total: number;
                /** @description Whether there are more than listed (`total` > the length of `data`): `GET /v1/visitors/{visitorId}/identities` pages through them all. */
                has_more: boolean;
                /** @description At most `limit` of them, newest first. */
                data: components["schemas"]["VisitorIdentity"][];
            };
            /** @description The visitor's conversions (orders reported with this visitor id, or with a session id of its generations, identities or conversions). */
            conversions: {
                /** @description How many conversions (orders reported with this visitor id, or with a session id of its generations, identities or conversions) there are in all. */
                total: number;
                /** @description Whether there are more than listed (`total` > the length of `data`): `GET /v1/visitors/{visitorId}/conversions` pages through them all. */
                has_more: boolean;
                /** @description At most `limit` of them, newest first. */
                data: components["schemas"]["Conversion"][];
            };
            /** @description An erasure of this visitor still under way, or null. */
            pendingErasure: components["schemas"]["VisitorErasure"] | null;
        };
        VisitorGeneration: {
            /** @description An id issued by the service (`agen_…`). */
            id: string;
            /** @constant */
            object: "generation";
            /** @enum {string} */
            status: "processing" | "complete" | "failed";
            /** @enum {string} */
            mode: "virtual-try-on" | "room-visualizer";
            /** @enum {string} */
            imageSize: "1K" | "2K" | "4K";
            /** @description The full-size image once complete; null before. */
            imageUrl: string | null;
            imageVariants: components["schemas"]["ImageVariants"] | null;
            products: components["schemas"]["Product"][];
            hint: string | null;
            error: {
                code: string;
                message: string;
            } | null;
            metadata: {
                [key: string]: string;
            } | null;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
            completedAt: string | null;
            /** @description The store of the widget it was made through. */
            storeId: string | null;
            widgetId: string | null;
            /** @description The browser session it was made in (the SDK's `sessionId`). */
            sessionId: string | null;
        };
        VisitorIdentity: {
            /** @constant */
            object: "visitor_identity";
            storeId: string;
            /** @description The shop's own user id the SDK's `identify` linked the visitor to. */
            userId: string;
            traits: {
                [key: string]: string | number | boolean;
            };
            /** @description The session of the latest `identify`. */
            sessionId: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            updatedAt: string;
        };
        VisitorErasure: {
            /** @description An id issued by the service (`vera_…`). */
            id: string;
            /** @constant */
            object: "visitor_erasure";
            /**
             * @description `pending` until every generation, identity and conversion of the visitor has been dealt with.
             * @enum {string}
             */
            status: "pending" | "complete";
            /** @description Who asked: the API key (`key_…`) or the dashboard user (`usr_…`). */
            requestedBy: {
                /** @enum {string} */
                type: "api_key" | "user";
                id: string;
            };
            /**
             * Format: date-time
             * @description ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.
             */
            requestedAt: string;
            completedAt: string | null;
            /** @description Generations deleted; their images are deleted by jobs of their own, soon after. */
            generationsDeleted: number;
            /** @description Identity records (`identify`) deleted, one per store at most. */
            identitiesDeleted: number;
            /** @description Conversions kept for your revenue figures, with their visitor and session ids removed. */
            conversionsUnlinked: number;
        };
        Health: {
            /** @constant */
            status: "ok";
        };
        Readiness: {
            /** @constant */
            status: "ready";
        };
        Success: {
            /** @constant */
            success: true;
        };
        CreateGenerationRequest: {
            /** @enum {string} */
            mode: "virtual-try-on" | "room-visualizer";
            /** @description The customer photo: an https URL (at most 2048 characters) or a `data:image/<type>;base64,<data>` URI, at most 10 MB decoded. */
            image: string | unknown | unknown;
            products: components["schemas"]["Product"][];
            hint?: string | null;
            /**
             * @default 1K
             * @enum {string}
             */
            imageSize?: "1K" | "2K" | "4K";
            metadata?: {
                [key: string]: string;
            } | null;
        };
        CreateStoreRequest: {
            name: string;
            attributionWindowDays?: number;
        };
        UpdateOrganizationRequest: {
            /** @description Days to keep each render (original, variants, uploaded photo) after it was made; null keeps them for ever. */
            renderRetentionDays?: number | null;
        };
        CreateWebhookEndpointRequest: {
            /** Format: uri */
            url: string;
            enabledEvents: ("*" | "generation.completed" | "generation.failed")[];
            description?: string | null;
        };
        UpdateWebhookEndpointRequest: {
            /** Format: uri */
            url?: string;
            enabledEvents?: ("*" | "generation.completed" | "generation.failed")[];
            description?: string | null;
            /** @enum {string} */
            status?: "enabled" | "disabled";
        };
        ResendEventRequest: {
            /** @description Only to this endpoint; omitted, to every enabled endpoint subscribed to the event. */
            endpointId?: string;
        };
        OrderWebhookRequest: {
            orderId: string;
            storeId: string;
            organizationId: string;
            visitorId: string;
            sessionId: string;
            totalCents: number;
            currency: string;
            /** @constant */
            platform: "custom";
            /** @enum {string} */
            status: "pending" | "processing" | "on-hold" | "completed" | "refunded" | "cancelled";
            orderCreatedAt: string;
            items: {
                productId: string | number;
                quantity: number;
                priceCents: number;
                totalCents: number;
            }[];
        };
        CollectRequest: {
            /** @constant */
            type: "$conversion";
            storeId: string;
            visitorId: string;
            sessionId: string;
            props: {
                orderId: string;
                /** @default 0 */
                totalCents?: number;
                /** @default USD */
                currency?: string;
                /**
                 * @default completed
                 * @enum {string}
                 */
                status?: "pending" | "processing" | "on-hold" | "completed" | "refunded" | "cancelled";
                /** @default [] */
                items?: {
                    productId: string | number;
                    quantity: number;
                    priceCents: number;
                    totalCents: number;
                }[];
            };
        } | {
            /** @constant */
            type: "$identify";
            storeId: string;
            visitorId: string;
            sessionId: string;
            userId: string;
            /** @default {} */
            traits?: {
                [key: string]: string | number | boolean;
            };
        };
        CreateWidgetRequest: {
            storeId: string;
            /** @enum {string} */
            mode: "virtual-try-on" | "room-visualizer";
            /**
             * @default 1K
             * @enum {string}
             */
            imageSize?: "1K" | "2K" | "4K";
            allowedOrigins: string[];
            /** @default 500 */
            dailyGenerationCap?: number;
            /** @default null */
            dailyCreditCap?: number | null;
        };
        UpdateWidgetRequest: {
            /** @enum {string} */
            mode?: "virtual-try-on" | "room-visualizer";
            /**
             * @default 1K
             * @enum {string}
             */
            imageSize?: "1K" | "2K" | "4K";
            allowedOrigins?: string[];
            dailyGenerationCap?: number;
            dailyCreditCap?: number | null;
        };
        WidgetGenerationRequest: {
            visitorId: string;
            sessionId: string;
            /** @description The customer photo: an https URL (at most 2048 characters) or a `data:image/<type>;base64,<data>` URI, at most 10 MB decoded. */
            image: string | unknown | unknown;
            products: components["schemas"]["Product"][];
            hint?: string | null;
        };
        CreateSessionRequest: {
            email: string;
            password: string;
        } | {
            token: string;
        };
        AcceptInvitationRequest: {
            token: string;
            password: string;
        };
        UpdateUserRequest: {
            /** @enum {string} */
            role: "admin" | "viewer";
        };
        InviteUserRequest: {
            /** Format: email */
            email: string;
            /** @enum {string} */
            role: "admin" | "viewer";
        };
        CreateApiKeyRequest: {
            /** @enum {string} */
            kind: "secret" | "conversion";
            name?: string;
        };
        GenerationList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["Generation"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
        StoreList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["Store"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
        CreditLedgerEntryList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["CreditLedgerEntry"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
        WebhookEndpointList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["WebhookEndpoint"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
        EventList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["Event"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
        WebhookDeliveryList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["WebhookDelivery"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
        WebhookAttemptList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["WebhookAttempt"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
        ConversionList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["Conversion"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
        WidgetList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["Widget"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
        UserList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["User"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
        SessionList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["Session"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
        ApiKeyList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["ApiKey"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
        VisitorGenerationList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["VisitorGeneration"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
        VisitorIdentityList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["VisitorIdentity"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
        VisitorErasureList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["VisitorErasure"][];
            /** @description Whether a next page exists: ask again with `starting_after` set to the last id of `data`. */
            has_more: boolean;
        };
    };
    responses: {
        /** @description The request is invalid: `param` names the field at fault. */
        ParameterInvalid: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {unknown} */
                        code: "parameter_invalid";
                    };
                };
            };
        };
        /** @description No such resource. */
        ResourceMissing: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {unknown} */
                        code: "resource_missing";
                    };
                };
            };
        };
        /** @description No such resource. */
        RouteNotFound: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {unknown} */
                        code: "route_not_found";
                    };
                };
            };
        };
        /** @description The request body is too large. */
        BodyTooLarge: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {unknown} */
                        code: "body_too_large";
                    };
                };
            };
        };
        /** @description The body is not sent as a supported content type. */
        UnsupportedMediaType: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {unknown} */
                        code: "unsupported_media_type";
                    };
                };
            };
        };
        /** @description Too many requests: retry after `Retry-After` seconds. */
        RateLimited: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                /** @description Seconds to wait before retrying. */
                "retry-after"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {unknown} */
                        code: "rate_limited";
                    };
                };
            };
        };
        /** @description An error. */
        HeadersTooLarge: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {unknown} */
                        code: "headers_too_large";
                    };
                };
            };
        };
        /** @description Something went wrong on our side; quote `x-request-id` when you report it. */
        InternalError: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {unknown} */
                        code: "internal_error";
                    };
                };
            };
        };
        /** @description Briefly unavailable: retry after `Retry-After` seconds. */
        DatabaseUnavailable: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                /** @description Seconds to wait before retrying. */
                "retry-after"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {unknown} */
                        code: "database_unavailable";
                    };
                };
            };
        };
        /** @description Any other error, in the same envelope: say 400 `malformed_request` or 408 `request_timeout`, which answer a request that is not valid HTTP/1.1 before any route sees it. */
        UnexpectedError: {
            headers: {
                "x-request-id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
        CsrfToken: string;
    };
    requestBodies: never;
    headers: {
        /** @description The request id: yours when you sent a sane `x-request-id` (8 to 128 of `[A-Za-z0-9_.:-]`), else one made up (`req_…`). Quote it when you report a problem. */
        RequestId: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listGenerations: {
        parameters: {
            query?: {
                /** @description How many items to return, 1 to 100. */
                limit?: number;
                /** @description The id of the last item of the previous page; the page continues after it (newest first). */
                starting_after?: string;
                /** @description Only generations in this status. */
                status?: "processing" | "complete" | "failed";
                /** @description Only generations of this mode. */
                mode?: "virtual-try-on" | "room-visualizer";
                /**
                 * @description Start of the range (inclusive). Compared with `createdAt`.
                 * @example 2025-03-01
                 */
                from?: string | unknown | unknown;
                /**
                 * @description End of the range (exclusive); must be after `from`. Compared with `createdAt`.
                 * @example 2025-04-01
                 */
                to?: string | unknown | unknown;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of generations. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GenerationList"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    createGeneration: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the create safe to retry: a key used before (keys are bound for good, per organization) answers 200 with its original generation and `Idempotent-Replayed: true`, ignoring the new body, and charges nothing. 1 to 255 printable ASCII characters without spaces.
                 * @example order-1234-try-on
                 */
                "Idempotency-Key"?: string;
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path?: never;
            cookie?: never;
        };
        /** @description `image` is an https URL or a `data:image/*;base64,` URI of at most 10 MB decoded. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "mode": "virtual-try-on",
                 *       "image": "https://shop.example/uploads/customer-photo.jpg",
                 *       "products": [
                 *         {
                 *           "productId": "sku-1042",
                 *           "productTitle": "Linen shirt, sky blue",
                 *           "imageUrl": "https://shop.example/images/sku-1042.jpg",
                 *           "productUrl": "https://shop.example/products/linen-shirt"
                 *         }
                 *       ],
                 *       "hint": "Sleeves rolled up",
                 *       "imageSize": "1K",
                 *       "metadata": {
                 *         "orderId": "1234"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["CreateGenerationRequest"];
            };
        };
        responses: {
            /** @description Replayed: the `Idempotency-Key` was used before; this is its generation as it is now. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description `true` when an `Idempotency-Key` seen before answered its first generation. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Generation"];
                };
            };
            /** @description Accepted: rendering has started. */
            202: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Generation"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "idempotency_key_invalid" | "image_too_large" | "invalid_image" | "invalid_json" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_credits" | "insufficient_role";
                        };
                    };
                };
            };
            /** @description Gone: the generation was deleted, with its images. */
            410: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "generation_deleted" | "generation_expired";
                        };
                    };
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            /** @description Briefly unavailable: retry after `Retry-After` seconds. */
            503: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "database_unavailable" | "storage_unavailable";
                        };
                    };
                };
            };
            default: components["responses"]["UnexpectedError"];
        };
    };
    getGeneration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The generation id (`agen_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The generation. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Generation"];
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            /** @description Gone: the generation was deleted, with its images. */
            410: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "generation_expired";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    deleteGeneration: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path: {
                /** @description The generation id (`agen_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedGeneration"];
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    listStores: {
        parameters: {
            query?: {
                /** @description How many items to return, 1 to 100. */
                limit?: number;
                /** @description The id of the last item of the previous page; the page continues after it (newest first). */
                starting_after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of stores. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StoreList"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    createStore: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "EU storefront",
                 *       "attributionWindowDays": 30
                 *     }
                 */
                "application/json": components["schemas"]["CreateStoreRequest"];
            };
        };
        responses: {
            /** @description The new store. */
            201: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Store"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_json" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role";
                        };
                    };
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getCreditBalance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The balance. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreditBalance"];
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    listCreditLedgerEntries: {
        parameters: {
            query?: {
                /** @description How many items to return, 1 to 100. */
                limit?: number;
                /** @description The id of the last item of the previous page; the page continues after it (newest first). */
                starting_after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of ledger entries. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreditLedgerEntryList"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getOrganization: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The organization. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"];
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    updateOrganization: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "renderRetentionDays": 30
                 *     }
                 */
                "application/json": components["schemas"]["UpdateOrganizationRequest"];
            };
        };
        responses: {
            /** @description The organization as it is now. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_json" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role";
                        };
                    };
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query?: {
                /** @description How many items to return, 1 to 100. */
                limit?: number;
                /** @description The id of the last item of the previous page; the page continues after it (newest first). */
                starting_after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of endpoints. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointList"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://shop.example/hooks/visualizer",
                 *       "enabledEvents": [
                 *         "generation.completed",
                 *         "generation.failed"
                 *       ],
                 *       "description": "Production"
                 *     }
                 */
                "application/json": components["schemas"]["CreateWebhookEndpointRequest"];
            };
        };
        responses: {
            /** @description The new endpoint, with its signing secret. */
            201: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "endpoint_limit_reached" | "invalid_json" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role";
                        };
                    };
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook endpoint id (`whe_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint (without its secret). */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path: {
                /** @description The webhook endpoint id (`whe_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedWebhookEndpoint"];
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    updateWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path: {
                /** @description The webhook endpoint id (`whe_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "enabled"
                 *     }
                 */
                "application/json": components["schemas"]["UpdateWebhookEndpointRequest"];
            };
        };
        responses: {
            /** @description The updated endpoint. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_json" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    rotateWebhookEndpointSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path: {
                /** @description The webhook endpoint id (`whe_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint with its new secret. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RotatedWebhookEndpoint"];
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @description How many items to return, 1 to 100. */
                limit?: number;
                /** @description The id of the last item of the previous page; the page continues after it (newest first). */
                starting_after?: string;
                /** @description Only events of this type. */
                type?: "generation.completed" | "generation.failed";
                /** @description Only the events reporting this generation (`agen_…`); its deliveries' attempts are at `/v1/events/{id}/attempts`. */
                generationId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventList"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The event id (`evt_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event with one delivery per endpoint. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventWithDeliveries"];
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    listEventAttempts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The event id (`evt_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The attempts. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookAttemptList"];
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    resendEvent: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path: {
                /** @description The event id (`evt_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "endpointId": "whe_2aXbQ4mR7kP9sT1vW3yZ5cD8"
                 *     }
                 */
                "application/json": components["schemas"]["ResendEventRequest"];
            };
        };
        responses: {
            /** @description The deliveries queued. */
            202: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "endpoint_disabled" | "invalid_json" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    streamEvents: {
        parameters: {
            query?: {
                /**
                 * @description Only events of these types, comma-separated (`types=generation.completed,generation.failed`).
                 * @example [
                 *       "generation.completed",
                 *       "generation.failed"
                 *     ]
                 */
                types?: ("generation.completed" | "generation.failed")[];
            };
            header?: {
                /** @description The id of the last event received on a previous stream: this one sends the events after it (in creation order) first. Deduplicate by id around a reconnection. */
                "Last-Event-ID"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream; it stays open until the time limit, the server stopping, or the client closing it. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example id: evt_2aXbQ4mR7kP9sT1vW3yZ5cD8
                     *     event: generation.completed
                     *     data: {"id":"evt_2aXbQ4mR7kP9sT1vW3yZ5cD8","type":"generation.completed","createdAt":"2025-03-01T14:30:12.000Z","data":{"id":"agen_2aXbQ4mR7kP9sT1vW3yZ5cD8","object":"generation","status":"complete","mode":"virtual-try-on","imageSize":"1K","imageUrl":"https://visualizer.example.com/cdn/gen/agen_2aXbQ4mR7kP9sT1vW3yZ5cD8/Xb3kP9sT1vW3yZ5cD8aXbQ4mR/original.png","imageVariants":{"list":{"url":"https://visualizer.example.com/cdn/gen/agen_2aXbQ4mR7kP9sT1vW3yZ5cD8/Xb3kP9sT1vW3yZ5cD8aXbQ4mR/list.jpg","width":200},"card":{"url":"https://visualizer.example.com/cdn/gen/agen_2aXbQ4mR7kP9sT1vW3yZ5cD8/Xb3kP9sT1vW3yZ5cD8aXbQ4mR/card.jpg","width":600},"detail":{"url":"https://visualizer.example.com/cdn/gen/agen_2aXbQ4mR7kP9sT1vW3yZ5cD8/Xb3kP9sT1vW3yZ5cD8aXbQ4mR/detail.jpg","width":1200}},"products":[{"productId":"sku-1042","productTitle":"Linen shirt, sky blue","imageUrl":"https://shop.example/images/sku-1042.jpg"}],"hint":null,"error":null,"metadata":{"orderId":"1234"},"createdAt":"2025-03-01T14:30:00.000Z","completedAt":"2025-03-01T14:30:12.000Z"}}
                     */
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            /** @description Too many requests: retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "rate_limited" | "too_many_streams";
                        };
                    };
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    reportOrder: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "orderId": "1234",
                 *       "storeId": "store_2aXbQ4mR7kP9sT1vW3yZ5cD8",
                 *       "organizationId": "org_7hJkL2mN4pQ6rS8tU0vW2xY4",
                 *       "visitorId": "v_9f8e7d6c",
                 *       "sessionId": "s_1a2b3c4d",
                 *       "totalCents": 5998,
                 *       "currency": "USD",
                 *       "platform": "custom",
                 *       "status": "completed",
                 *       "orderCreatedAt": "2025-03-01T14:30:00Z",
                 *       "items": [
                 *         {
                 *           "productId": "sku-1042",
                 *           "quantity": 2,
                 *           "priceCents": 2999,
                 *           "totalCents": 5998
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["OrderWebhookRequest"];
            };
        };
        responses: {
            /** @description Recorded. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Success"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_json" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "organization_mismatch" | "store_not_allowed";
                        };
                    };
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    collectBrowserEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "$conversion",
                 *       "storeId": "store_2aXbQ4mR7kP9sT1vW3yZ5cD8",
                 *       "visitorId": "v_9f8e7d6c",
                 *       "sessionId": "s_1a2b3c4d",
                 *       "props": {
                 *         "orderId": "1234",
                 *         "totalCents": 5998,
                 *         "currency": "USD",
                 *         "items": [
                 *           {
                 *             "productId": "sku-1042",
                 *             "quantity": 2,
                 *             "priceCents": 2999,
                 *             "totalCents": 5998
                 *           }
                 *         ]
                 *       }
                 *     }
                 */
                "text/plain": components["schemas"]["CollectRequest"];
                /**
                 * @example {
                 *       "type": "$conversion",
                 *       "storeId": "store_2aXbQ4mR7kP9sT1vW3yZ5cD8",
                 *       "visitorId": "v_9f8e7d6c",
                 *       "sessionId": "s_1a2b3c4d",
                 *       "props": {
                 *         "orderId": "1234",
                 *         "totalCents": 5998,
                 *         "currency": "USD",
                 *         "items": [
                 *           {
                 *             "productId": "sku-1042",
                 *             "quantity": 2,
                 *             "priceCents": 2999,
                 *             "totalCents": 5998
                 *           }
                 *         ]
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["CollectRequest"];
            };
        };
        responses: {
            /** @description Accepted. */
            202: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description Always `*`: any page may report. */
                    "access-control-allow-origin"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Success"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_json" | "parameter_invalid";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    preflightCollect: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Any origin may POST. */
            204: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description Always `*`: any page may report. */
                    "access-control-allow-origin"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    listConversions: {
        parameters: {
            query?: {
                /** @description How many items to return, 1 to 100. */
                limit?: number;
                /** @description The id of the last item of the previous page; the page continues after it (newest first). */
                starting_after?: string;
                /** @description Only orders of this store. */
                storeId?: string;
                /**
                 * @description Start of the range (inclusive).
                 * @example 2025-03-01
                 */
                from?: string | unknown | unknown;
                /**
                 * @description End of the range (exclusive); must be after `from`.
                 * @example 2025-04-01
                 */
                to?: string | unknown | unknown;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of conversions. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversionList"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getAnalyticsDaily: {
        parameters: {
            query?: {
                /** @description Only this store. */
                storeId?: string;
                /**
                 * @description Start of the range (inclusive); by default 30 days before `to`.
                 * @example 2025-03-01
                 */
                from?: string | unknown | unknown;
                /**
                 * @description End of the range (exclusive); must be after `from`, at most 366 days after it; by default the end of today (UTC).
                 * @example 2025-04-01
                 */
                to?: string | unknown | unknown;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The figures per day. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnalyticsDaily"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getAnalyticsSummary: {
        parameters: {
            query: {
                /** @description The store. */
                storeId: string;
                /**
                 * @description Start of the range (inclusive).
                 * @example 2025-03-01
                 */
                from?: string | unknown | unknown;
                /**
                 * @description End of the range (exclusive); must be after `from`.
                 * @example 2025-04-01
                 */
                to?: string | unknown | unknown;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The summary. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnalyticsSummary"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    listWidgets: {
        parameters: {
            query?: {
                /** @description How many items to return, 1 to 100. */
                limit?: number;
                /** @description The id of the last item of the previous page; the page continues after it (newest first). */
                starting_after?: string;
                /** @description Only widgets of this store. */
                storeId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of widgets. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WidgetList"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    createWidget: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "storeId": "store_2aXbQ4mR7kP9sT1vW3yZ5cD8",
                 *       "mode": "virtual-try-on",
                 *       "imageSize": "1K",
                 *       "allowedOrigins": [
                 *         "https://shop.example"
                 *       ],
                 *       "dailyGenerationCap": 500,
                 *       "dailyCreditCap": 200
                 *     }
                 */
                "application/json": components["schemas"]["CreateWidgetRequest"];
            };
        };
        responses: {
            /** @description The new widget. */
            201: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Widget"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_json" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getWidget: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The widget id (`wdg_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The widget. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Widget"];
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    updateWidget: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path: {
                /** @description The widget id (`wdg_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "allowedOrigins": [
                 *         "https://shop.example",
                 *         "https://www.shop.example"
                 *       ],
                 *       "dailyGenerationCap": 1000,
                 *       "dailyCreditCap": 500
                 *     }
                 */
                "application/json": components["schemas"]["UpdateWidgetRequest"];
            };
        };
        responses: {
            /** @description The widget. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Widget"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_json" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getWidgetConfig: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The widget id (`wdg_…`). */
                widgetId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The public widget. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description The calling page's origin when the widget allows it (`*` on a 404). */
                    "access-control-allow-origin"?: string;
                    vary?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PublicWidget"];
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "origin_not_allowed";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    preflightWidgetConfig: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The widget id (`wdg_…`). */
                widgetId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The widget's allowed origin may call it. */
            204: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description The calling page's origin when the widget allows it (`*` on a 404). */
                    "access-control-allow-origin"?: string;
                    vary?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "origin_not_allowed";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    createWidgetGeneration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The widget id (`wdg_…`). */
                widgetId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "visitorId": "v_9f8e7d6c",
                 *       "sessionId": "s_1a2b3c4d",
                 *       "image": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEUlEQVQImWPoWHUGK2IYWhIAwKd/gaPL2LsAAAAASUVORK5CYII=",
                 *       "products": [
                 *         {
                 *           "productId": "sku-1042",
                 *           "productTitle": "Linen shirt, sky blue",
                 *           "imageUrl": "https://shop.example/images/sku-1042.jpg"
                 *         }
                 *       ],
                 *       "hint": null
                 *     }
                 */
                "application/json": components["schemas"]["WidgetGenerationRequest"];
            };
        };
        responses: {
            /** @description Accepted: rendering has started. */
            202: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description The calling page's origin when the widget allows it (`*` on a 404). */
                    "access-control-allow-origin"?: string;
                    vary?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Generation"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "image_too_large" | "invalid_image" | "invalid_json" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "insufficient_credits" | "origin_not_allowed";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description Too many requests: retry after `Retry-After` seconds. */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "daily_cap_reached" | "daily_credit_cap_reached" | "rate_limited";
                        };
                    };
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            /** @description Briefly unavailable: retry after `Retry-After` seconds. */
            503: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "database_unavailable" | "storage_unavailable";
                        };
                    };
                };
            };
            default: components["responses"]["UnexpectedError"];
        };
    };
    preflightWidgetGenerations: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The widget id (`wdg_…`). */
                widgetId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The widget's allowed origin may call it. */
            204: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description The calling page's origin when the widget allows it (`*` on a 404). */
                    "access-control-allow-origin"?: string;
                    vary?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "origin_not_allowed";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getWidgetGeneration: {
        parameters: {
            query: {
                /** @description The visitor the generation was made for. */
                visitorId: string;
            };
            header?: never;
            path: {
                /** @description The widget id (`wdg_…`). */
                widgetId: string;
                /** @description The generation id (`agen_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The generation. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description The calling page's origin when the widget allows it (`*` on a 404). */
                    "access-control-allow-origin"?: string;
                    vary?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Generation"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "origin_not_allowed";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    preflightWidgetGeneration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The widget id (`wdg_…`). */
                widgetId: string;
                /** @description The generation id (`agen_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The widget's allowed origin may call it. */
            204: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description The calling page's origin when the widget allows it (`*` on a 404). */
                    "access-control-allow-origin"?: string;
                    vary?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "origin_not_allowed";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getVisitor: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The widget visitor's id, as the browser SDK made it (`getIdentity().visitorId`), URL-encoded: 1 to 128 characters.
                 * @example v_9f8e7d6c
                 */
                visitorId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description What is held about the visitor. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description `no-store`: the answer holds personal data. */
                    "cache-control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Visitor"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    eraseVisitor: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path: {
                /**
                 * @description The widget visitor's id, as the browser SDK made it (`getIdentity().visitorId`), URL-encoded: 1 to 128 characters.
                 * @example v_9f8e7d6c
                 */
                visitorId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The erasure, pending. */
            202: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description `no-store`: the answer holds personal data. */
                    "cache-control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VisitorErasure"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    listVisitorGenerations: {
        parameters: {
            query?: {
                /** @description How many items to return, 1 to 100. */
                limit?: number;
                /** @description The id of the last generation of the previous page; the page continues after it. */
                starting_after?: string;
            };
            header?: never;
            path: {
                /**
                 * @description The widget visitor's id, as the browser SDK made it (`getIdentity().visitorId`), URL-encoded: 1 to 128 characters.
                 * @example v_9f8e7d6c
                 */
                visitorId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the visitor's generations. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description `no-store`: the answer holds personal data. */
                    "cache-control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VisitorGenerationList"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    listVisitorIdentities: {
        parameters: {
            query?: {
                /** @description How many items to return, 1 to 100. */
                limit?: number;
                /** @description The `storeId` of the last identity of the previous page (identities have no id of their own); the page continues after it. */
                starting_after?: string;
            };
            header?: never;
            path: {
                /**
                 * @description The widget visitor's id, as the browser SDK made it (`getIdentity().visitorId`), URL-encoded: 1 to 128 characters.
                 * @example v_9f8e7d6c
                 */
                visitorId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the visitor's identities. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description `no-store`: the answer holds personal data. */
                    "cache-control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VisitorIdentityList"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    listVisitorConversions: {
        parameters: {
            query?: {
                /** @description How many items to return, 1 to 100. */
                limit?: number;
                /** @description The id of the last conversion of the previous page; the page continues after it. */
                starting_after?: string;
            };
            header?: never;
            path: {
                /**
                 * @description The widget visitor's id, as the browser SDK made it (`getIdentity().visitorId`), URL-encoded: 1 to 128 characters.
                 * @example v_9f8e7d6c
                 */
                visitorId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the visitor's conversions. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description `no-store`: the answer holds personal data. */
                    "cache-control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversionList"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    listVisitorErasures: {
        parameters: {
            query?: {
                /** @description How many items to return, 1 to 100. */
                limit?: number;
                /** @description The id of the last item of the previous page; the page continues after it (newest first). */
                starting_after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of erasures. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VisitorErasureList"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getVisitorErasure: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The erasure id (`vera_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The erasure. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VisitorErasure"];
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CurrentSession"];
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "not_signed_in" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "session_required";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@shop.example",
                 *       "password": "correct horse battery staple"
                 *     }
                 */
                "application/json": components["schemas"]["CreateSessionRequest"];
            };
        };
        responses: {
            /** @description Signed in: the session, and its cookie. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description `visualizer_session=…; Path=…; Max-Age=…; HttpOnly; SameSite=Lax`, plus `Secure` when the public URL is https. */
                    "set-cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CurrentSession"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_json" | "invalid_link" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_credentials";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid";
                        };
                    };
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    deleteSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out. */
            204: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description `visualizer_session=…; Path=…; Max-Age=…; HttpOnly; SameSite=Lax`, plus `Secure` when the public URL is https. */
                    "set-cookie"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "not_signed_in" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "session_required";
                        };
                    };
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    acceptInvitation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "Xb3kP9sT1vW3yZ5cD8aXbQ4mR7kP9sT1",
                 *       "password": "correct horse battery staple"
                 *     }
                 */
                "application/json": components["schemas"]["AcceptInvitationRequest"];
            };
        };
        responses: {
            /** @description Signed in: the session, and its cookie. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description `visualizer_session=…; Path=…; Max-Age=…; HttpOnly; SameSite=Lax`, plus `Secure` when the public URL is https. */
                    "set-cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CurrentSession"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_json" | "invalid_link" | "parameter_invalid" | "password_too_long" | "password_too_short";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid";
                        };
                    };
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    listUsers: {
        parameters: {
            query?: {
                /** @description How many items to return, 1 to 100. */
                limit?: number;
                /** @description The id of the last item of the previous page; the page continues after it (newest first). */
                starting_after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of users. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserList"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "not_signed_in" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "insufficient_role" | "session_required";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    deleteUser: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path: {
                /** @description The user id (`usr_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user is gone. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedUser"];
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "not_signed_in" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role" | "session_required";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            /** @description The request conflicts with the current state. */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "last_admin";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path: {
                /** @description The user id (`usr_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "role": "viewer"
                 *     }
                 */
                "application/json": components["schemas"]["UpdateUserRequest"];
            };
        };
        responses: {
            /** @description The user. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_json" | "invalid_role" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "not_signed_in" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role" | "session_required";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            /** @description The request conflicts with the current state. */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "last_admin";
                        };
                    };
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    createInvitation: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "grace@shop.example",
                 *       "role": "viewer"
                 *     }
                 */
                "application/json": components["schemas"]["InviteUserRequest"];
            };
        };
        responses: {
            /** @description The invitation, with its link shown once. */
            201: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invitation"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_email" | "invalid_json" | "invalid_role" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "not_signed_in" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role" | "session_required";
                        };
                    };
                };
            };
            /** @description The request conflicts with the current state. */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "email_taken";
                        };
                    };
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    listSessions: {
        parameters: {
            query?: {
                /** @description Whose sessions (admins only, when not yours). */
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The sessions, all on one page. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "not_signed_in" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "insufficient_role" | "session_required";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    deleteSessionById: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path: {
                /** @description The session id (`ses_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked. */
            204: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "not_signed_in" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "session_required";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    listApiKeys: {
        parameters: {
            query?: {
                /** @description How many items to return, 1 to 100. */
                limit?: number;
                /** @description The id of the last item of the previous page; the page continues after it (newest first). */
                starting_after?: string;
                /** @description Only keys of this kind. */
                kind?: "secret" | "conversion";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of keys. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyList"];
                };
            };
            400: components["responses"]["ParameterInvalid"];
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "not_signed_in" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "session_required";
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "kind": "secret",
                 *       "name": "production server"
                 *     }
                 */
                "application/json": components["schemas"]["CreateApiKeyRequest"];
            };
        };
        responses: {
            /** @description The new key, with the key itself. */
            201: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyWithSecret"];
                };
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_json" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "not_signed_in" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role" | "session_required";
                        };
                    };
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path: {
                /** @description The key id (`key_…`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The revoked key. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "not_signed_in" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role" | "session_required";
                        };
                    };
                };
            };
            404: components["responses"]["ResourceMissing"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    mcpStream: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The method is not allowed on this route. */
            405: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "method_not_allowed";
                        };
                    };
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    mcp: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description Must list both `application/json` and `text/event-stream`, as the Streamable HTTP transport requires (the answer is JSON); otherwise 406. MCP clients send it.
                 * @example application/json, text/event-stream
                 */
                Accept: string;
                /** @description With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key. */
                "X-CSRF-Token"?: components["parameters"]["CsrfToken"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "jsonrpc": "2.0",
                 *       "id": 1,
                 *       "method": "tools/call",
                 *       "params": {
                 *         "name": "get_generation",
                 *         "arguments": {
                 *           "id": "agen_4hVd0kQm3rT8yWz1bC6nE2pL"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @constant */
                    jsonrpc: "2.0";
                };
            };
        };
        responses: {
            /** @description The JSON-RPC response. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        jsonrpc: "2.0";
                    };
                };
            };
            /** @description Accepted: the body held only notifications or responses. */
            202: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: `param` names the field at fault. */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_json" | "parameter_invalid";
                        };
                    };
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "api_key_revoked" | "invalid_api_key" | "malformed_authorization" | "missing_api_key" | "session_expired";
                        };
                    };
                };
            };
            /** @description The key or session may not do this. */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "csrf_token_invalid" | "insufficient_role";
                        };
                    };
                };
            };
            /** @description The `Accept` header does not list both `application/json` and `text/event-stream`, as the transport requires: a JSON-RPC error. */
            406: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        jsonrpc: "2.0";
                    };
                };
            };
            413: components["responses"]["BodyTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    mcpEndSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The method is not allowed on this route. */
            405: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "method_not_allowed";
                        };
                    };
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server is up. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready for traffic. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["DatabaseUnavailable"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The Prometheus text format (version 0.0.4). */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description No valid key or session was sent. */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description With a missing or bad API key: `Bearer realm="visualizer"`. */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "invalid_metrics_token";
                        };
                    };
                };
            };
            404: components["responses"]["RouteNotFound"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getCdnImage: {
        parameters: {
            query?: never;
            header?: {
                /** @description An `ETag` received before: answered 304 when it still matches. */
                "If-None-Match"?: string;
            };
            path: {
                /**
                 * @description The object key, slashes included, as the image URLs of a generation name it (`gen/agen_…/…/detail.webp`).
                 * @example gen/agen_2aXbQ4mR7kP9sT1vW3yZ5cD8/Xb3kP9sT1vW3yZ5cD8aXbQ4mR/detail.webp
                 */
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The image. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description A strong validator: send it back as `If-None-Match`. */
                    etag?: string;
                    "cache-control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": string;
                    "image/png": string;
                    "image/webp": string;
                    "image/*": string;
                };
            };
            /** @description Not modified: the `If-None-Match` validator still matches. */
            304: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description A strong validator: send it back as `If-None-Match`. */
                    etag?: string;
                    "cache-control"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            404: components["responses"]["ResourceMissing"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            /** @description Briefly unavailable: retry after `Retry-After` seconds. */
            503: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description Seconds to wait before retrying. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {unknown} */
                            code: "storage_unavailable";
                        };
                    };
                };
            };
            default: components["responses"]["UnexpectedError"];
        };
    };
    getReferencePage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description `default-src 'self'`, and what Swagger UI needs besides. */
                    "content-security-policy"?: string;
                    "cache-control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getReferencePageAsset: {
        parameters: {
            query?: never;
            header?: {
                /** @description An `ETag` received before: answered 304 when it still matches. */
                "If-None-Match"?: string;
            };
            path: {
                /** @description The assets' version, as the page names it. */
                version: string;
                /** @description e.g. `swagger-ui-bundle.js`, `swagger-ui.css`, `reference-page.js`. */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description A strong validator: send it back as `If-None-Match`. */
                    etag?: string;
                    "cache-control"?: string;
                    /** @description `gzip` when the request accepted it (text only). */
                    "content-encoding"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": string;
                    "text/css": string;
                    "image/png": string;
                };
            };
            /** @description Not modified. */
            304: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description A strong validator: send it back as `If-None-Match`. */
                    etag?: string;
                    "cache-control"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            404: components["responses"]["RouteNotFound"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getSdkLoader: {
        parameters: {
            query?: never;
            header?: {
                /** @description An `ETag` received before: answered 304 when it still matches. */
                "If-None-Match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The loader script (gzipped when accepted). */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description A strong validator: send it back as `If-None-Match`. */
                    etag?: string;
                    "cache-control"?: string;
                    /** @description `gzip` when the request accepted it. */
                    "content-encoding"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": string;
                };
            };
            /** @description Not modified. */
            304: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description A strong validator: send it back as `If-None-Match`. */
                    etag?: string;
                    "cache-control"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getSdkWidgetBundle: {
        parameters: {
            query?: never;
            header?: {
                /** @description An `ETag` received before: answered 304 when it still matches. */
                "If-None-Match"?: string;
            };
            path: {
                /** @description The bundle name, `widget.<hash>.js`. */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The widget script (gzipped when accepted). */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description A strong validator: send it back as `If-None-Match`. */
                    etag?: string;
                    "cache-control"?: string;
                    /** @description `gzip` when the request accepted it. */
                    "content-encoding"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": string;
                };
            };
            /** @description Not modified. */
            304: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description A strong validator: send it back as `If-None-Match`. */
                    etag?: string;
                    "cache-control"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            404: components["responses"]["RouteNotFound"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: {
                /** @description An `ETag` received before: answered 304 when it still matches. */
                "If-None-Match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document (gzipped when accepted). Cached 5 minutes and revalidated by `ETag`. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description A strong validator: send it back as `If-None-Match`. */
                    etag?: string;
                    "cache-control"?: string;
                    /** @description `gzip` when the request accepted it. */
                    "content-encoding"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description Not modified. */
            304: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    /** @description A strong validator: send it back as `If-None-Match`. */
                    etag?: string;
                    "cache-control"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            default: components["responses"]["UnexpectedError"];
        };
    };
    generationCompletedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones too far from now. */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, one per active secret (two during a rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type: "generation.completed";
                };
            };
        };
        responses: {
            /** @description Received (any 2xx will do). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    generationFailedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every retry: deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones too far from now. */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, one per active secret (two during a rotation). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type: "generation.failed";
                };
            };
        };
        responses: {
            /** @description Received (any 2xx will do). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
