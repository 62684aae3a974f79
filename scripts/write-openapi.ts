import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiText } from '../core/http/openapi/document.ts';

/** Writes docs/openapi.json from the schemas (`npm run openapi`); a test fails while it is stale. */
const target = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
writeFileSync(target, openApiText);
console.log(`wrote ${target}`);
