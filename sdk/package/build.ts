/**
 * Builds the package into `dist/`: `index.js` and the widget UI as a lazily imported chunk
 * (esbuild, ES2022 modules), and the declarations (tsc). Run by `npm run build` here and by the
 * tests, which publish nothing that was not built from the current sources.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';

const packageDir = fileURLToPath(new URL('./', import.meta.url));
const sdkDir = fileURLToPath(new URL('../', import.meta.url));
export const distDir = `${packageDir}dist`;

/**
 * Declarations for the entry and the files its declarations import, under `dist/types/`
 * (mirroring `sdk/`). The sources import `.ts` paths, which tsc keeps in declarations; they are
 * rewritten to `.js`, which every TypeScript resolution mode maps to the `.d.ts` beside it. The
 * widget's internals are not part of the public types, so they are not published.
 */
function emitDeclarations() {
  const program = ts.createProgram([`${packageDir}src/index.ts`], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    strict: true,
    types: [],
    declaration: true,
    emitDeclarationOnly: true,
    allowImportingTsExtensions: true,
    rootDir: sdkDir,
    outDir: `${distDir}/types`,
  });
  const emitted = new Map<string, string>();
  const result = program.emit(undefined, (file, text) => emitted.set(path.resolve(file), text));
  const problems = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (problems.length) {
    throw new Error(
      ts.formatDiagnostics(problems, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => sdkDir,
        getNewLine: () => '\n',
      }),
    );
  }
  const pending = [path.join(distDir, 'types/package/src/index.d.ts')];
  const written = new Set<string>();
  for (let file = pending.pop(); file; file = pending.pop()) {
    if (written.has(file)) continue;
    const text = emitted.get(file);
    if (text === undefined) throw new Error(`tsc emitted no ${path.relative(distDir, file)}`);
    const rewritten = text.replace(
      /((?:from|import)\s*\(?\s*')(\.{1,2}\/[^']+)\.ts'/g,
      (_, head: string, specifier: string) => {
        pending.push(path.resolve(path.dirname(file), `${specifier}.d.ts`));
        return `${head}${specifier}.js'`;
      },
    );
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, rewritten);
    written.add(file);
  }
}

export async function buildPackage(): Promise<void> {
  rmSync(distDir, { recursive: true, force: true });
  await build({
    entryPoints: { index: `${packageDir}src/index.ts` },
    bundle: true,
    splitting: true,
    format: 'esm',
    target: 'es2022',
    outdir: distDir,
    chunkNames: '[name]-[hash]',
    legalComments: 'none',
    logLevel: 'silent',
    // Source comments name files relative to sdk/, whatever directory the build runs from.
    absWorkingDir: sdkDir,
  });
  emitDeclarations();
  writeFileSync(`${distDir}/index.d.ts`, "export * from './types/package/src/index.js';\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildPackage();
