/**
 * What an app module (demo/, dashboard/, sdk/) may use of the core: the module's own type, the
 * request helpers the API's routes use, and the types those take. Everything else of the core may
 * change under them; test/architecture.test.ts holds them to this file.
 */
export type { Config } from '../../config/schema.ts';
export type { Cradle } from '../cradle.ts';
export type { ConversionItem, ConversionRecord } from '../domain/conversion.ts';
export { ApiError } from '../domain/errors.ts';
export type { ImageCdn } from '../ports/image-cdn.ts';
export { answersTrailingSlash, type AppModule } from './app-module.ts';
export { requireSession, services } from './context.ts';
export { bodyTooLarge } from './errors.ts';
export { pathId } from './params.ts';
export { prebuiltBundles } from './prebuilt-bundles.ts';
export { httpRateLimit } from './rate-limit.ts';
export { sessionToken } from './session-auth.ts';
export { serveStaticAsset, staticAsset, type StaticAsset } from './static-asset.ts';
