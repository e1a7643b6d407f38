/**
 * `npm run report:provisional`: every `x-provisional` item per service, the API designers' worklist
 * of what the published documents left open and the contracts designed. `--markdown` for a table.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { listOperations } from '../server-stubs/lib/openapi/document.js';
import { defaultRoot } from '../server-stubs/lib/root.js';
import { findApiServices, findSchemaSets, listFiles } from './lib/project.js';
import { collectProvisional, type ProvisionalItem } from './lib/provisional.js';

export interface ServiceReport {
  service: string;
  items: Array<ProvisionalItem & { where: string }>;
}

/** `/paths/~1projects/get/...` -> `GET /projects ...`, so a reader sees the operation, not a pointer. */
function describe(pointer: string, labels: Map<string, string>): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (parts[0] === 'paths' && parts.length >= 3) {
    const label = labels.get(`${parts[1]} ${parts[2]}`) ?? `${parts[2]!.toUpperCase()} ${parts[1]}`;
    const rest = parts.slice(3).join('.');
    return rest ? `${label} › ${rest}` : label;
  }
  return parts.join('.') || '(document)';
}

export function provisionalReport(root: string): ServiceReport[] {
  const reports: ServiceReport[] = [];
  const seen = new Map<string, Set<string>>(); // service -> component schema names in its bundle
  for (const service of findApiServices(root)) {
    const file = path.join(root, 'generated', service.slug, 'openapi.json');
    const document = JSON.parse(readFileSync(file, 'utf8'));
    const labels = new Map(listOperations(document).map((o) => [`${o.path} ${o.method}`, `${o.label} (${o.id})`]));
    reports.push({
      service: service.slug,
      items: collectProvisional(document).map((i) => ({ ...i, where: describe(i.pointer, labels) })),
    });
    seen.set(service.slug, new Set(Object.keys(document.components?.schemas ?? {})));
  }
  for (const set of findSchemaSets(root)) {
    // A schema the service's bundle already holds was reported with the service.
    const inBundle = seen.get(set.slug) ?? new Set<string>();
    const files = [
      ...set.files.filter((f) => !inBundle.has(path.basename(f, '.json'))),
      ...listFiles(set.dir).filter((f) => f.endsWith('.openrpc.json')),
    ];
    const items = files.flatMap((file) =>
      collectProvisional(JSON.parse(readFileSync(file, 'utf8'))).map((i) => ({
        ...i,
        where: `${path.basename(file)}${i.pointer === '/' ? '' : ` › ${i.pointer.slice(1).replaceAll('/', '.')}`}`,
      })),
    );
    const existing = reports.find((r) => r.service === set.slug);
    if (existing) existing.items.push(...items);
    else reports.push({ service: set.slug, items });
  }
  return reports;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const reports = provisionalReport(defaultRoot);
  const markdown = process.argv.includes('--markdown');
  for (const report of reports) {
    if (markdown) {
      console.log(`\n## ${report.service} (${report.items.length} provisional)\n\n| where | what was designed |\n|---|---|`);
      for (const item of report.items) console.log(`| ${item.where.replaceAll('|', '\\|')} | ${item.note.replaceAll('|', '\\|')} |`);
    } else {
      console.log(`\n${report.service}: ${report.items.length} provisional`);
      for (const item of report.items) console.log(`  ${item.where}\n      ${item.note}`);
    }
  }
  const total = reports.reduce((n, r) => n + r.items.length, 0);
  console.log(`\n${total} provisional items in ${reports.length} services`);
}
