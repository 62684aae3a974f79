import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

/**
 * Generates the client's types (clients/node/src/schema.ts) from docs/openapi.json with
 * openapi-typescript (`npm run client:types`). A .ts file rather than .d.ts so the package's build
 * emits it into dist; test/client-types.test.ts fails while the committed file is stale.
 */
export const documentPath = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
export const schemaPath = fileURLToPath(new URL('../clients/node/src/schema.ts', import.meta.url));

const header = `/**
 * Generated from docs/openapi.json by openapi-typescript: do not edit.
 * Regenerate with \`npm run client:types\` after \`npm run openapi\`.
 */

`;

/** The text schema.ts must hold for the current document. */
export async function generateClientTypes(document: string = readFileSync(documentPath, 'utf8')): Promise<string> {
  const ast = await openapiTS(JSON.parse(document), { silent: true, defaultNonNullable: false });
  return header + astToString(ast);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(schemaPath, await generateClientTypes());
  console.log(`wrote ${schemaPath}`);
}
