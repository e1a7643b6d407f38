/**
 * Writes server-stubs/lib/corpus/documents.json, the embedded corpus behind the local retriever
 * (server-stubs/lib/retrieval.ts). Deterministic: the same input always gives the same file, so
 * the committed JSON only changes when this script does. Run: `npx tsx scripts/generate-corpus.ts`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SUBJECTS, type Subject } from './lib/corpus-subjects.js';

export interface CorpusDocument {
  id: string;
  url: string;
  title: string;
  area: string;
  text: string;
}

interface Aspect {
  slug: string;
  title: (subject: Subject) => string;
  text: (subject: Subject) => string;
}

// Each subject is written once as three facts; the aspects recombine them into pages the way a
// documentation site splits a topic into an overview, a pitfalls page and a how-to.
const ASPECTS: Aspect[] = [
  {
    slug: 'overview',
    title: (s) => `${s.name}: overview`,
    text: (s) => `${s.what} ${s.practice} This page is part of the ${s.area} guide.`,
  },
  {
    slug: 'pitfalls',
    title: (s) => `Common pitfalls with ${s.name}`,
    text: (s) => `${s.pitfall} ${s.what} Review these settings before every release.`,
  },
  {
    slug: 'best-practices',
    title: (s) => `${s.name} best practices`,
    text: (s) => `${s.practice} ${s.pitfall} Teams usually record this choice in their engineering guide.`,
  },
  {
    slug: 'faq',
    title: (s) => `${s.name} FAQ`,
    text: (s) => `What is ${s.name}? ${s.what} What goes wrong most often? ${s.pitfall}`,
  },
];

export function buildCorpus(subjects: readonly Subject[] = SUBJECTS): CorpusDocument[] {
  return subjects.flatMap((subject) =>
    ASPECTS.map((aspect) => ({
      id: `${subject.slug}-${aspect.slug}`,
      url: `https://docs.example.com/${subject.areaSlug}/${subject.slug}/${aspect.slug}`,
      title: aspect.title(subject),
      area: subject.area,
      text: aspect.text(subject),
    })),
  );
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'server-stubs', 'lib', 'corpus', 'documents.json');
  mkdirSync(dirname(target), { recursive: true });
  const documents = buildCorpus();
  writeFileSync(target, `${JSON.stringify(documents, null, 1)}\n`);
  console.log(`wrote ${documents.length} documents to ${target}`);
}
