import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

/**
 * The dependency rules of the codebase, read from the source: the core stands alone, the domain
 * needs no port, and plugins reach the core only through the exported kit, as a third party must.
 */
const root = path.resolve(import.meta.dirname, '..');
const kit = 'kit/plugin.ts';
const packageName = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).name as string;

function sourcesUnder(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs)$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

/** Every specifier a file imports or re-exports, statically or with `import()`. */
function specifiers(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  const found = [
    ...text.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm),
  ];
  return found.map((match) => match[1] ?? match[2] ?? match[3]!);
}

/** A specifier as a path from the repository root, or the bare package name it names. */
function target(file: string, specifier: string): string {
  if (specifier.startsWith('.')) return path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  if (specifier === `${packageName}/plugin`) return kit;
  if (specifier === `${packageName}/testing`) return 'kit/testing/index.ts';
  return specifier;
}

const imports = (file: string) => specifiers(file).map((specifier) => ({ specifier, target: target(file, specifier) }));

/** `file: specifier` for each import of a file under `dirs` whose target `forbidden` refuses. */
function violations(dirs: string[], forbidden: (target: string, file: string) => boolean): string[] {
  return dirs.flatMap(sourcesUnder).flatMap((file) =>
    imports(file)
      .filter(({ target }) => forbidden(target, file))
      .map(({ specifier }) => `${file}: ${specifier}`),
  );
}

const under = (target: string, ...dirs: string[]) => dirs.some((dir) => target === dir || target.startsWith(`${dir}/`));

describe('architecture', () => {
  it('the core imports no plugin, app module or CLI', () => {
    assert.deepEqual(
      violations(['core'], (target) => under(target, 'plugins', 'demo', 'sdk', 'dashboard', 'cli')),
      [],
    );
  });

  it('the domain imports no port', () => {
    assert.deepEqual(
      violations(['core/domain'], (target) => under(target, 'core/ports')),
      [],
    );
  });

  it('config is a leaf: it imports nothing of the project, so core, CLI and plugins can all read it', () => {
    const otherFolders = readdirSync(root, { withFileTypes: true })
      .filter(
        (entry) =>
          entry.isDirectory() && !entry.name.startsWith('.') && !['node_modules', 'config'].includes(entry.name),
      )
      .map((entry) => entry.name);
    assert.deepEqual(
      violations(['config'], (target) => target.startsWith('..') || under(target, ...otherFolders)),
      [],
    );
  });

  it('plugins reach the core only through visualizer/plugin, and never through the container', () => {
    const internal = (target: string) =>
      (under(target, 'core', 'config', 'kit', 'cli', 'demo', 'sdk') && target !== kit) || target === 'awilix';
    assert.deepEqual(violations(['plugins'], internal), []);
  });

  it('visualizer/plugin reaches nothing internal: no service, route, kernel or adapter', () => {
    const seen = new Set<string>();
    const pending = [kit];
    while (pending.length) {
      const file = pending.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const { target } of imports(file)) if (target.includes('/') && target.endsWith('.ts')) pending.push(target);
    }
    const internal = [...seen].filter(
      (file) =>
        under(file, 'core/http', 'core/services', 'plugins', 'demo', 'sdk', 'cli') ||
        file === 'core/kernel.ts' ||
        file === 'core/cradle.ts',
    );
    assert.deepEqual(internal, []);
    assert.ok(seen.has('core/ports/index.ts'), 'the walk follows the kit into the ports');
  });

  it('routes call services only: no route imports the persistence port or reaches the store', () => {
    assert.deepEqual(
      violations(['core/http/routes'], (target) => under(target, 'core/ports/persistence')),
      [],
    );
    // `services(event)` is the whole container, so a route could still take the store from it by name.
    const reaching = sourcesUnder('core/http/routes').filter((file) =>
      /\bpersistence\b|\bRepositories\b/.test(readFileSync(path.join(root, file), 'utf8')),
    );
    assert.deepEqual(reaching, []);
  });

  it('app modules reach the core only through core/http/app-module-api.ts', () => {
    const face = 'core/http/app-module-api.ts';
    assert.deepEqual(
      violations(['demo', 'dashboard', 'sdk'], (target) => under(target, 'core', 'config', 'kit') && target !== face),
      [],
    );
    assert.ok(
      imports('dashboard/module.ts').some(({ target }) => target === face),
      "the rule sees the modules' imports",
    );
  });

  it("only plugins/store-kysely/kysely.ts loads Kysely's values; every other file takes its types alone from 'kysely'", () => {
    // Loading its ES module build as well would cost every process its start-up time again, and two copies of its classes.
    const valueImports = ['core', 'plugins', 'cli', 'kit', 'test']
      .flatMap(sourcesUnder)
      .filter((file) => file !== 'plugins/store-kysely/kysely.ts')
      .filter((file) => {
        const text = readFileSync(path.join(root, file), 'utf8');
        return [...text.matchAll(/^import\s+(type\s+)?\{([^}]*)\}\s+from\s+'kysely'/gm)].some(
          (match) => !match[1] && match[2]!.split(',').some((name) => name.trim() && !name.trim().startsWith('type ')),
        );
      });
    assert.deepEqual(valueImports, []);
    assert.ok(
      imports('plugins/store-kysely/postgres.ts').some(({ target }) => target === 'plugins/store-kysely/kysely.ts'),
    );
  });

  it('no service imports core/cradle.ts: each names its own dependencies, and the cradle is derived from the services', () => {
    assert.deepEqual(
      violations(
        ['core/services'],
        (target) => target === 'core/cradle.ts' || target === 'core/kernel.ts' || target === 'core/lifecycle.ts',
      ),
      [],
    );
  });

  it('the core has no import cycle, not even through types', () => {
    const local = (file: string) =>
      imports(file)
        .map(({ target }) => target)
        .filter((target) => under(target, 'core', 'config'));
    const done = new Set<string>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]) => {
      const at = path.indexOf(file);
      if (at >= 0) return void cycles.push([...path.slice(at), file].join(' -> '));
      if (done.has(file)) return;
      for (const next of local(file)) visit(next, [...path, file]);
      done.add(file);
    };
    for (const file of sourcesUnder('core')) visit(file, []);
    assert.deepEqual(cycles, []);
  });

  it('the rules see real imports', () => {
    assert.ok(imports('plugins/queue-db/index.ts').some(({ target }) => target === kit));
    assert.ok(imports('core/cradle.ts').some(({ target }) => target === 'core/services/generations.ts'));
    assert.ok(imports('core/services/widgets.ts').some(({ target }) => target === 'core/services/generations.ts'));
  });
});
