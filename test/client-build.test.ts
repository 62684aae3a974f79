import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from './support/app.ts';

const run = promisify(execFile);

/** tsc's report on `files` of `project` as a shop's ESM TypeScript project compiles them: '' when clean. */
async function typecheck(project: string, files: string[]): Promise<string> {
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const flags = [
    '--noEmit',
    '--strict',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--target',
    'es2022',
    '--types',
    'node',
    ...files,
  ];
  const result = await run(process.execPath, [tsc, ...flags], { cwd: project }).catch(
    (error: { stdout: string }) => error,
  );
  return result.stdout;
}
const root = fileURLToPath(new URL('..', import.meta.url));
const packageDir = path.join(root, 'clients/node');

/**
 * Builds the package with its own `build` script into a throwaway project laid out as npm installs
 * it (node_modules/@visualizer/client with package.json and dist, its dependencies beside it), then
 * uses it from plain `node` and plain `tsc`: what a shop without tsx gets.
 */
describe('@visualizer/client as built and installed', () => {
  let project: string;
  let app: TestApp;
  let keys: { apiKey: string };

  before(async () => {
    project = mkdtempSync(path.join(os.tmpdir(), 'visualizer-client-build-'));
    const installed = path.join(project, 'node_modules/@visualizer/client');
    mkdirSync(installed, { recursive: true });
    await run('npm', ['run', 'build', '--silent', '--', '--outDir', path.join(installed, 'dist')], { cwd: packageDir });
    copyFileSync(path.join(packageDir, 'package.json'), path.join(installed, 'package.json'));
    // The package's dependencies (and @types/node for the TypeScript consumer), as npm would place them.
    for (const name of ['openapi-fetch', 'standardwebhooks', '@types/node']) {
      mkdirSync(path.dirname(path.join(project, 'node_modules', name)), { recursive: true });
      symlinkSync(path.join(root, 'node_modules', name), path.join(project, 'node_modules', name), 'dir');
    }
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'shop', private: true, type: 'module' }));
    app = await startTestApp();
    keys = { apiKey: (await app.tenants.createOrganization({ name: 'Built shop', credits: 7 })).apiKey.key };
  });
  after(async () => {
    await app?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('emits JavaScript and declarations where the exports map points', () => {
    const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
    for (const target of Object.values(manifest.exports['.'] as Record<string, string>)) {
      assert.ok(existsSync(path.join(project, 'node_modules/@visualizer/client', target)), target);
    }
  });

  it('works from plain node against the service', async () => {
    writeFileSync(
      path.join(project, 'smoke.mjs'),
      `import { createClient, AuthenticationError, verifyWebhook, WebhookVerificationError } from '@visualizer/client';
import { Webhook } from 'standardwebhooks';

const client = createClient({ apiKey: process.env.API_KEY, baseUrl: process.env.BASE_URL });
const { balance } = await client.credits.retrieve();
const wrong = await createClient({ apiKey: 'visualizer_wrong', baseUrl: process.env.BASE_URL }).credits.retrieve().catch((error) => error);

const secret = 'whsec_' + Buffer.alloc(32, 1).toString('base64');
const body = JSON.stringify({ id: 'evt_1', type: 'generation.completed', createdAt: new Date().toISOString(), data: {} });
const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) };
headers['webhook-signature'] = new Webhook(secret).sign('evt_1', new Date(), body);
const event = verifyWebhook(body, headers, secret);
let tampered;
try { verifyWebhook(body + ' ', headers, secret); } catch (error) { tampered = error instanceof WebhookVerificationError; }

console.log(JSON.stringify({ balance, unauthenticated: wrong instanceof AuthenticationError && wrong.code, event: event.type, tampered }));
`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, API_KEY: keys.apiKey, BASE_URL: app.url };
    delete env.NODE_OPTIONS; // whatever loaders this test runs under, the child has none
    const { stdout } = await run(process.execPath, ['smoke.mjs'], { cwd: project, env });
    assert.deepEqual(JSON.parse(stdout), {
      balance: 7,
      unauthenticated: 'invalid_api_key',
      event: 'generation.completed',
      tampered: true,
    });
  });

  it('gives a TypeScript consumer its types through the exports map', async () => {
    writeFileSync(
      path.join(project, 'consumer.ts'),
      `import { createClient, type Generation, type WebhookEvent } from '@visualizer/client';

const client = createClient({ apiKey: 'visualizer_…', baseUrl: 'https://visualizer.example.com' });
export async function latest(): Promise<Generation | undefined> {
  const generation = await client.generations.create({ mode: 'virtual-try-on', image: 'https://shop.example/me.jpg', products: [] });
  // @ts-expect-error: not a mode of the API
  await client.generations.create({ mode: 'sketch', image: '', products: [] });
  return generation.status === 'complete' ? generation : undefined;
}
export async function firstComplete() {
  for await (const generation of client.paginate('/v1/generations', { status: 'complete' })) return generation.imageVariants?.card.url;
  // @ts-expect-error: not a list route
  client.paginate('/v1/credits');
  // @ts-expect-error: not a status
  client.paginate('/v1/generations', { status: 'done' });
}
export const urlOf = (event: WebhookEvent) => (event.type === 'generation.completed' ? event.data.imageVariants?.detail.url : event.data.error?.code);
`,
    );
    assert.equal(await typecheck(project, ['consumer.ts']), '', 'the consumer typechecks');
  });

  it('typechecks every TypeScript example of docs/client.md against what it exports', async () => {
    const blocks = [
      ...readFileSync(path.join(root, 'docs/client.md'), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm),
    ].map((match) => match[1]!);
    assert.ok(blocks.length >= 6, 'the guide has its examples');
    const files = blocks.map((block, index) => {
      const file = `example-${index}.ts`;
      // The examples share a client and call the shop's own functions: declared here, as a shop's code would define them.
      const context = [
        "import type { CreateGenerationRequest, OrderReport, VisualizerClient } from '@visualizer/client';",
        /\bconst visualizer\b/.test(block) ? '' : 'declare const visualizer: VisualizerClient;',
        'declare const body: CreateGenerationRequest, order: OrderReport, form: { visitorId: string; sessionId: string };',
        'declare function showFieldError(param: string | null, message: string): void;',
        'declare function alertOperator(): void;',
        'declare function saveRender(id: string, url: string | undefined): void;',
        'declare function markFailed(id: string, code: string | undefined): void;',
        'export {};',
      ];
      writeFileSync(path.join(project, file), `${context.join('\n')}\n${block}`);
      return file;
    });
    assert.equal(await typecheck(project, files), '');
  });
});
