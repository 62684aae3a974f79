import { prepareQueue, shutdown, startScheduler, startWorkers } from '../../core/lifecycle.ts';
import type { Cradle } from '../../core/cradle.ts';
import type { CredentialsSigner } from '../../core/ports/content-credentials.ts';
import type { RenderRoutes } from '../../core/services/engine-routes.ts';
import { freePort } from '../../core/http/free-port.ts';
import { startAppModules } from '../../core/http/app-module.ts';
import { startHttpServer } from '../../core/http/server.ts';
import { appModules } from '../app-modules.ts';
import { boot } from '../boot.ts';
import { UsageError, type Command } from '../command.ts';
import type { Output } from '../output.ts';
import { developmentSignInLine, ensureDevelopmentAdmin } from '../development-sign-in.ts';
import { stopSignal } from '../stop-signal.ts';
import { joinTopology } from '../topology.ts';

/**
 * An embedded database (the SQLite default) lives with this process, so serve keeps its schema
 * current itself. A shared database server is migrated on purpose (`visualizer migrate`, e.g. in
 * a deploy step); serve only checks it.
 */
async function prepareDatabase({ persistence }: Cradle): Promise<{ isNew: boolean }> {
  if (persistence.capabilities.embedded) {
    const { applied } = await persistence.migrate();
    return { isNew: applied.length > 0 && (await persistence.organizations.list()).length === 0 };
  }
  const pending = await persistence.pendingMigrations();
  if (pending.length)
    throw new UsageError(`The database needs migrations (${pending.join(', ')}). Run 'visualizer migrate' first.`);
  return { isNew: false };
}

async function createDevelopmentOrganization(cradle: Cradle, output: Output) {
  const { organization, store, apiKey, conversionKey } = await cradle.tenants.createOrganization({
    name: 'Development',
    credits: 100,
  });
  await ensureDevelopmentAdmin(cradle, organization.id);
  output.out('New database: created a development organization. Its keys are shown only now.');
  output.out(`  organizationId  ${organization.id}`);
  output.out(`  storeId         ${store.id}`);
  output.out(`  apiKey          ${apiKey.key}`);
  output.out(`  conversionKey   ${conversionKey.key}`);
  output.out(`  credits         ${organization.creditBalance}`);
}

/**
 * The banner's lines on renders. Renders from the mock alone get a warning: it pastes product
 * images onto the photo and marks them PREVIEW, which a first-time user could otherwise take for
 * the product's quality. Otherwise each mode's route, in the order engines are tried.
 */
export function renderBannerLines(routes: RenderRoutes): string[] {
  const routed = Object.entries(routes).map(
    ([mode, engines]) => [mode, engines.map(({ engine }) => engine.name)] as const,
  );
  const names = routed.flatMap(([, engines]) => engines);
  if (names.every((name) => name === 'mock')) {
    return [
      'Renderer: mock, a placeholder that pastes the product onto the photo and marks every result PREVIEW. For real renders, set VISUALIZER_RENDERER=gemini GEMINI_API_KEY=<your key>.',
    ];
  }
  const lines = [`Renders: ${routed.map(([mode, engines]) => `${mode} by ${engines.join(', then ')}`).join('; ')}.`];
  if (names.includes('mock'))
    lines.push('Renderer mock is a placeholder: its results are the product pasted onto the photo, marked PREVIEW.');
  return lines;
}

/**
 * The banner's warning when images are signed with the development certificate made on this data
 * directory: readers show such Content Credentials as untrusted, which a production shop should not.
 */
export function credentialsBannerLine(signer: CredentialsSigner): string | null {
  if (!signer.development) return null;
  return `Content Credentials: signed with a development certificate (${signer.source}), which verifiers show as untrusted. For production, configure your own: VISUALIZER_C2PA_CERTIFICATE_FILE and VISUALIZER_C2PA_KEY_FILE (docs/operations.md, Content credentials).`;
}

/** What the number of render workers means to someone starting the server. */
export const renderWorkersText = (workers: number) =>
  workers === 0
    ? 'renders nothing itself: no render workers, `visualizer worker` processes render'
    : `renders up to ${workers} generation${workers === 1 ? '' : 's'} at once`;

export const apiOnlyBannerLine =
  'API only (--api-only): no workers and no scheduler in this process. Webhooks are delivered and renders run only by `visualizer worker` processes on the same database.';

export const serve: Command = {
  name: 'serve',
  usage: 'serve [--api-only]',
  summary:
    'Run the API, the workers (renders, webhook deliveries) and the scheduler in one process; --api-only runs the API alone (renders and webhooks then need `worker` processes).',
  options: { 'api-only': { type: 'boolean' } },
  async run(values, { env, output }) {
    const apiOnly = values['api-only'] === true;
    // PORT=0 picks a free port up front, so the default public URL (CDN links) names the real one.
    const portEnv = env.PORT === '0' ? { ...env, PORT: String(await freePort(env.HOST || '127.0.0.1')) } : env;
    const { config, container } = await boot(portEnv);
    // Listening from the start: a SIGTERM while the banner is still being written stops it gracefully.
    const stopping = stopSignal();
    let registration: Awaited<ReturnType<typeof joinTopology>> | undefined;
    try {
      const { isNew } = await prepareDatabase(container.cradle);
      registration = await joinTopology(container.cradle, { role: apiOnly ? 'serve-api-only' : 'serve', env, output });
      await prepareQueue(container.cradle);
      if (isNew && config.createDevOrganization) await createDevelopmentOrganization(container.cradle, output);
      await startAppModules(appModules, container.cradle);
      const server = await startHttpServer(container, { port: config.port, host: config.host, modules: appModules });
      // API only: renders, webhook deliveries and the periodic sweeps belong to `worker` processes.
      const workers = apiOnly ? 0 : await startWorkers(container.cradle);
      if (!apiOnly) await startScheduler(container.cradle);
      output.out(
        `Visualizer listening on ${server.url} (public URL ${config.publicUrl}; ${apiOnly ? 'API only' : renderWorkersText(workers)})`,
      );
      if (apiOnly) output.out(apiOnlyBannerLine);
      for (const line of renderBannerLines(container.cradle.renderRoutes)) output.out(line);
      // Only where this process stores images: an API-only process signs none.
      const credentialsLine = apiOnly ? null : credentialsBannerLine(container.cradle.credentials.signer);
      if (credentialsLine) output.out(credentialsLine);
      output.out(`API reference: ${config.publicUrl}/docs (OpenAPI document: ${config.publicUrl}/openapi.json)`);
      for (const module of appModules)
        for (const line of (await module.banner?.(config, container.cradle)) ?? []) output.out(line);
      const signInLine = await developmentSignInLine(container.cradle);
      if (signInLine) output.out(signInLine);

      await stopping;
      output.err('Stopping: finishing in-flight requests and renders…');
      await server.close();
      return 0;
    } finally {
      await registration?.stop();
      await shutdown(container);
    }
  },
};
