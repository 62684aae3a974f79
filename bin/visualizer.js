#!/usr/bin/env node
// The server runs TypeScript directly through tsx (no build step); this shim registers it
// so `npx visualizer …` and `npm start` work from any working directory.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
