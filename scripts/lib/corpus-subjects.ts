/**
 * The subjects of the embedded developer-docs corpus (input of scripts/generate-corpus.ts), kept as
 * data in corpus-subjects.json: one entry per area, its subjects in the order the corpus lists them.
 */
import { readFileSync } from 'node:fs';

export interface Subject {
  area: string;
  areaSlug: string;
  slug: string;
  name: string;
  /** what it is, one or two sentences */
  what: string;
  /** what goes wrong */
  pitfall: string;
  /** what to do */
  practice: string;
}

type SubjectFields = Omit<Subject, 'area' | 'areaSlug'>;
const FIELDS = ['slug', 'name', 'what', 'pitfall', 'practice'] as const satisfies ReadonlyArray<keyof SubjectFields>;

interface Area {
  area: string;
  areaSlug: string;
  subjects: SubjectFields[];
}

/** The areas of a parsed corpus-subjects.json, refused with the place of the first field that is not text. */
function readAreas(parsed: unknown, file: string): Area[] {
  const fail = (where: string): never => {
    throw new Error(`${file}: ${where} must be a string`);
  };
  if (!Array.isArray(parsed)) throw new Error(`${file}: must be an array of areas`);
  return parsed.map((entry: Partial<Record<string, unknown>>, i) => {
    if (typeof entry.area !== 'string') fail(`[${i}].area`);
    if (typeof entry.areaSlug !== 'string') fail(`[${i}].areaSlug`);
    if (!Array.isArray(entry.subjects)) throw new Error(`${file}: [${i}].subjects must be an array`);
    for (const [j, subject] of (entry.subjects as Array<Partial<Record<string, unknown>>>).entries()) {
      for (const field of FIELDS) if (typeof subject[field] !== 'string') fail(`[${i}].subjects[${j}].${field}`);
    }
    return entry as unknown as Area;
  });
}

const file = new URL('./corpus-subjects.json', import.meta.url);

export const SUBJECTS: Subject[] = readAreas(JSON.parse(readFileSync(file, 'utf8')), 'corpus-subjects.json').flatMap(({ area, areaSlug, subjects }) =>
  subjects.map(({ slug, name, what, pitfall, practice }) => ({ area, areaSlug, slug, name, what, pitfall, practice })),
);
