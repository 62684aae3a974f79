/** Summaries of a V8 .cpuprofile: self time grouped by package or source file, per request. */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const shortUrl = (url: string) =>
  url
    .replace(/^file:\/\/.*?\/node_modules\//, 'nm/')
    .replace(/^file:\/\/\/.*?\/(bench|core|plugins|config|test)\//, '$1/');

/** `sharp`, `kysely`, `node:webstreams`, `core/http/body.ts`, or `native:writev` for a frame without a script. */
function group(node: ProfileNode): string {
  const url = shortUrl(node.callFrame.url);
  if (!url) return `native:${node.callFrame.functionName}`;
  const pkg = /^nm\/(@[^/]+\/[^/]+|[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:').replace(/\/.*$/, '');
  return url;
}

const pseudo = new Set(['native:(idle)', 'native:(garbage collector)', 'native:(program)', 'native:(root)']);

/**
 * Busy time by group, per request: a native frame (a syscall, a SQLite call) is charged as
 * `native:name <- caller group`, so `native:run <- kysely` is SQLite executing Kysely's queries.
 */
export function summarizeProfile(profile: CpuProfile, requests: number, top = 30): string {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const byGroup = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const node = nodes.get(id)!;
    let name = group(node);
    if (name.startsWith('native:') && !pseudo.has(name)) {
      let parent = parents.get(id);
      while (parent !== undefined && group(nodes.get(parent)!).startsWith('native:')) parent = parents.get(parent);
      name = `${name} <- ${parent === undefined ? '?' : group(nodes.get(parent)!)}`;
    }
    byGroup.set(name, (byGroup.get(name) ?? 0) + (profile.timeDeltas[index + 1] ?? 0));
  });
  const idle = byGroup.get('native:(idle)') ?? 0;
  byGroup.delete('native:(idle)');
  const busy = [...byGroup.values()].reduce((a, b) => a + b, 0);
  const lines = [...byGroup]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(
      ([name, micros]) =>
        `${((100 * micros) / busy).toFixed(1).padStart(5)}%  ${(micros / requests).toFixed(1).padStart(7)} µs/req  ${name}`,
    );
  return [
    `main thread busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms, ${requests} requests`,
    ...lines,
  ].join('\n');
}
