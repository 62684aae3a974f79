/**
 * The documentation stays navigable: the README is short enough to read (at most 12 KB), every
 * link in it and in docs/*.md points at a file of this repository (and at a heading that exists,
 * when it names one), and no link leads off the repository. URLs may appear only inside code, and
 * there only on loopback or on placeholder domains (`*.example`).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const documents = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

interface Parsed {
  /** Text outside fenced code blocks and inline code spans. */
  prose: string;
  /** The contents of fenced code blocks and inline code spans. */
  code: string[];
  headings: string[];
}

function parse(markdown: string): Parsed {
  const prose: string[] = [];
  const code: string[] = [];
  const headings: string[] = [];
  let fence: string | null = null;
  let block: string[] = [];
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
        code.push(block.join('\n'));
        fence = null;
        block = [];
      } else block.push(line);
      continue;
    }
    if (marker) {
      fence = marker;
      continue;
    }
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) headings.push(heading[1]!);
    prose.push(line);
  }
  // Code spans may continue on the next line of their paragraph, never past a blank line.
  const text = prose
    .join('\n')
    .replace(/(`+)((?:(?!\n\s*\n)[\s\S])*?)\1/g, (_span, _ticks, inner: string) => (code.push(inner), ' '));
  return { prose: text, code, headings };
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(headings: string[]): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const heading of headings) {
    const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
    const slug = text
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count ? `${slug}-${count}` : slug);
  }
  return result;
}

/** Inline links and images `[text](target)`, reference definitions `[x]: target` and autolinks `<scheme:…>`. */
function linkTargets(prose: string): string[] {
  const targets: string[] = [];
  for (const match of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1]!);
  for (const match of prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) targets.push(match[1]!);
  for (const match of prose.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]*)>/gi)) targets.push(match[1]!);
  return targets;
}

const placeholderHost = (host: string) => {
  const name = (host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:.*$/, '')).toLowerCase();
  return (
    ['localhost', '127.0.0.1', '::1', '0.0.0.0'].includes(name) ||
    name.startsWith('127.') ||
    name === 'example' ||
    name.endsWith('.example') ||
    /(^|\.)example\.(com|org|net)$/.test(name)
  );
};

const cache = new Map<string, Parsed>();
const parsed = (file: string) => {
  let result = cache.get(file);
  if (!result) cache.set(file, (result = parse(readFileSync(path.join(root, file), 'utf8'))));
  return result;
};

/** What is wrong with the links of `file` (a path relative to the repository) whose text is `markdown`. */
function linkProblems(file: string, markdown: string): string[] {
  const problems: string[] = [];
  for (const target of linkTargets(parse(markdown).prose)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) {
      problems.push(`${target}: points outside the repository`);
      continue;
    }
    const [pathPart = '', anchor] = target.split('#', 2);
    const resolved = pathPart
      ? path.resolve(path.dirname(path.join(root, file)), decodeURIComponent(pathPart))
      : path.join(root, file);
    const relative = path.relative(root, resolved);
    if (relative.startsWith('..') || path.isAbsolute(relative)) {
      problems.push(`${target}: points outside the repository`);
      continue;
    }
    const headings =
      relative === file
        ? parse(markdown).headings
        : existsSync(resolved) && resolved.endsWith('.md')
          ? parsed(relative).headings
          : null;
    if (!existsSync(resolved) && relative !== file) problems.push(`${target}: no such file ${relative}`);
    else if (anchor !== undefined && !headings) problems.push(`${target}: an anchor into a file that is not Markdown`);
    else if (anchor !== undefined && !anchors(headings!).has(anchor))
      problems.push(`${target}: ${relative} has no heading #${anchor}`);
  }
  return problems;
}

/** URLs in prose (GitHub makes them links), and URLs in code that are neither loopback nor placeholders. */
function urlProblems(markdown: string): string[] {
  const { prose, code } = parse(markdown);
  const problems = [...prose.matchAll(/https?:\/\/[^\s)>\]]+/g)].map((match) => `${match[0]}: a URL outside code`);
  for (const text of code) {
    for (const match of text.matchAll(/https?:\/\/([^\s/`'"<>)]+)[^\s`'"<>)]*/g)) {
      if (!placeholderHost(match[1]!)) problems.push(`${match[0]}: neither loopback nor a placeholder domain`);
    }
  }
  return problems;
}

describe('documentation', () => {
  it('keeps README.md at most 12 KB', () => {
    const size = statSync(path.join(root, 'README.md')).size;
    assert.ok(size <= 12_288, `README.md is ${size} bytes; at most 12288`);
  });

  it('has the documents the README points readers to', () => {
    for (const name of ['api', 'sdk', 'webhooks', 'operations', 'plugins', 'internals', 'benchmarks']) {
      assert.ok(documents.includes(`docs/${name}.md`), `docs/${name}.md is missing`);
    }
  });

  it('finds what these checks are for (the checks checked)', () => {
    const sample = [
      '# Sample heading',
      '[ok](api.md), [ok too](#sample-heading), [bad](missing.md), [off](https://elsewhere.test/x),',
      '[no anchor](webhooks.md#no-such-heading), ![picture](widget.png) and a bare https://elsewhere.test/y',
      '`curl http://localhost:3000/healthz` and `https://shop.example/a.png` but `https://elsewhere.test/z`',
      '```sh',
      'curl https://[::1]:8443/ https://elsewhere.test/w',
      '```',
    ].join('\n');
    assert.deepEqual(linkProblems('docs/sample.md', sample), [
      'missing.md: no such file docs/missing.md',
      'https://elsewhere.test/x: points outside the repository',
      'webhooks.md#no-such-heading: docs/webhooks.md has no heading #no-such-heading',
    ]);
    assert.deepEqual(urlProblems(sample), [
      'https://elsewhere.test/x: a URL outside code',
      'https://elsewhere.test/y: a URL outside code',
      'https://elsewhere.test/w: neither loopback nor a placeholder domain',
      'https://elsewhere.test/z: neither loopback nor a placeholder domain',
    ]);
  });

  for (const file of documents) {
    describe(file, () => {
      const text = () => readFileSync(path.join(root, file), 'utf8');
      it('links only to files (and headings) of this repository', () =>
        assert.deepEqual(linkProblems(file, text()), []));
      it('shows URLs only inside code, and there only on loopback or placeholder domains', () =>
        assert.deepEqual(urlProblems(text()), []));
    });
  }
});
