import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every relative link of the documentation (README.md and docs/**\/*.md) leads somewhere: to a file or directory of
 * the repository, and where it names a #fragment of a Markdown file, to a heading of that file.
 */
const ROOT = path.resolve(__dirname, '../..');

function markdownFiles(): string[] {
  const found = ['README.md'];
  const walk = (dir: string) => {
    if (!fs.existsSync(path.join(ROOT, dir))) return;
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) found.push(rel);
    }
  };
  walk('docs');
  return found;
}

/** The text without fenced code blocks and inline code, where brackets are no links. */
function prose(markdown: string): string {
  return markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/(`+)[\s\S]*?\1/g, '');
}

/** The link targets of a Markdown text: inline links and images, and reference definitions. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const targets: string[] = [];
  for (const m of text.matchAll(/!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(m[1]);
  for (const m of text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/gm)) targets.push(m[1]);
  return targets;
}

/** The anchors GitHub gives the headings of a Markdown text (duplicates numbered -1, -2, ...). */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of withoutFences.matchAll(/^ {0,3}#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = m[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/`/g, '');
    const slug = text
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  return anchors;
}

/** What is wrong with the relative links of `file` (a path below `root`), one line per broken link. */
function brokenLinks(root: string, file: string): string[] {
  const markdown = fs.readFileSync(path.join(root, file), 'utf8');
  const problems: string[] = [];
  for (const target of linkTargets(markdown)) {
    // Absolute URLs (http:, mailto:, ...) and site-absolute paths are not the repository's to check.
    if (!target || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) continue;
    const hash = target.indexOf('#');
    const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const fragment = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const resolved = pathPart ? path.join(path.dirname(path.join(root, file)), pathPart) : path.join(root, file);
    if (!path.relative(root, resolved).split(path.sep).every((part) => part !== '..') || !fs.existsSync(resolved)) {
      problems.push(`${file}: ${target}: no such file in the repository`);
      continue;
    }
    if (fragment === undefined || !resolved.endsWith('.md') || fs.statSync(resolved).isDirectory()) continue;
    if (!headingAnchors(fs.readFileSync(resolved, 'utf8')).has(fragment)) {
      problems.push(`${file}: ${target}: no heading #${fragment} in ${path.relative(root, resolved)}`);
    }
  }
  return problems;
}

describe('documentation links', () => {
  it('resolve: every relative link names a file of the repository, and every #fragment a heading there', () => {
    const files = markdownFiles();
    expect(files).toContain('README.md');
    expect(files.flatMap((file) => brokenLinks(ROOT, file))).toEqual([]);
  });

  it('are found and checked: a missing file, a missing heading and a path out of the repository are reported', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-links-'));
    try {
      fs.mkdirSync(path.join(dir, 'docs'));
      fs.writeFileSync(
        path.join(dir, 'docs', 'a.md'),
        [
          '# Page A',
          '## Files, `AASX` & serialization',
          '## Files, `AASX` & serialization',
          'See [b](b.md#the-b-heading), [self](#page-a), [dup](#files-aasx--serialization-1), [up](../README.md).',
          'Broken: [gone](missing.md), [anchor](b.md#nowhere), ![img](pic.png), [out](../../outside.md).',
          '[ref]: b.md#nothing-here',
          'Not links: `[x](nowhere.md)`, [web](https://example.com/x.md), [mail](mailto:a@b.c).',
          '```md',
          '[in code](nowhere.md)',
          '```',
        ].join('\n'),
      );
      fs.writeFileSync(path.join(dir, 'docs', 'b.md'), '# The B heading\n');
      fs.writeFileSync(path.join(dir, 'README.md'), '# Readme\n');
      expect(brokenLinks(dir, 'docs/a.md')).toEqual([
        'docs/a.md: missing.md: no such file in the repository',
        'docs/a.md: b.md#nowhere: no heading #nowhere in docs/b.md',
        'docs/a.md: pic.png: no such file in the repository',
        'docs/a.md: ../../outside.md: no such file in the repository',
        'docs/a.md: b.md#nothing-here: no heading #nothing-here in docs/b.md',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
