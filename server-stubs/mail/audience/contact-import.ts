import { CsvError, parse } from 'csv-parse/sync';
import type { components } from '../../../generated/mail/types.gen.js';
import { loadContract } from '../../lib/contract.js';
import { ApiError } from '../../lib/errors.js';
import { planNames, withinQuota } from '../identity/plans.js';
import type { Plan } from '../identity/store.js';
import type { ContactFields, ContactsStore } from './contacts-store.js';

type ImportRequest = components['schemas']['ImportContactsRequest'];
type ImportRow = ImportRequest['contacts'][number];
export type RowError = components['schemas']['ContactImport']['errors'][number];

/** A row to import and where it came from: its CSV line, or its 1-based position in a JSON `contacts` array. */
export interface NumberedRow {
  row: number;
  fields: ImportRow;
}

export interface ImportOptions {
  updateExisting: boolean;
  tags: string[];
}

const maxRows = 10_000;

/** The known columns; any other column becomes a custom field of that name. */
const knownColumns = new Set(['email', 'first_name', 'last_name', 'phone', 'status', 'tags']);

const csvProblems: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted cell is not closed',
  CSV_INVALID_CLOSING_QUOTE: 'a closing quote is followed by more text in the same cell',
  INVALID_OPENING_QUOTE: 'a quote appears inside an unquoted cell (quote the whole cell and double the quote)',
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'the row has more cells than the header',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'a closing quote is followed by more text in the same cell',
  CSV_MAX_RECORD_SIZE: 'the row is too long',
};

const invalidFile = (line: number, problem: string): never => {
  throw new ApiError(400, undefined, 'Invalid CSV file', { details: { formErrors: [`Line ${line}: ${problem}`] } });
};

/** The rows of a JSON import, numbered from 1; the framework validated them against the contract already. */
export function jsonRows(body: ImportRequest): NumberedRow[] {
  return body.contacts.map((fields, i) => ({ row: i + 1, fields }));
}

/**
 * Reads a CSV upload whole before anything is imported: a file that cannot be read (no header, no
 * `email` column, a broken quote, a row wider than the header, too many rows) is a 400 naming the
 * line. A readable row whose cells break a field's rule is returned as a row error instead, so it
 * fails alone.
 */
export function csvRows(text: string): { rows: NumberedRow[]; errors: RowError[] } {
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parse(text, { bom: true, info: true, skip_empty_lines: true, relax_column_count_less: true }) as unknown as typeof records;
  } catch (error) {
    if (error instanceof CsvError || (error as { code?: string }).code) {
      const { code, lines } = error as CsvError & { lines?: number };
      return invalidFile(lines ?? 1, csvProblems[code] ?? 'the file is not valid CSV');
    }
    throw error;
  }
  const blank = (cells: string[]) => cells.every((cell) => cell.trim() === '');
  const content = records.filter((r) => !blank(r.record));
  const [header, ...body] = content;
  if (!header) return invalidFile(1, 'the file has no header row');
  const columns = header.record.map((name) => name.trim().toLowerCase());
  if (!columns.includes('email')) return invalidFile(header.info.lines, 'the header has no email column');
  const repeated = columns.find((name, i) => name !== '' && columns.indexOf(name) !== i);
  if (repeated) return invalidFile(header.info.lines, `the header names the column "${repeated}" twice`);
  if (body.length === 0) return invalidFile(header.info.lines, 'the file has no rows after the header');
  if (body.length > maxRows) return invalidFile(body[maxRows]!.info.lines, `the file has more than ${maxRows} rows`);

  const rowSchema = loadContract('mail').validator(['paths', '/v1/contacts/import', 'post', 'requestBody', 'content', 'application/json', 'schema', 'properties', 'contacts', 'items']);
  const rows: NumberedRow[] = [];
  const errors: RowError[] = [];
  for (const { record, info } of body) {
    const fields = rowFromCells(columns, record);
    const email = fields.email;
    if (rowSchema(fields)) {
      rows.push({ row: info.lines, fields });
      continue;
    }
    const problems = (rowSchema.errors ?? []).map((e) => `${e.instancePath.replace(/^\//, '').replace(/\//g, '.') || 'row'}: ${e.message}`);
    errors.push({ row: info.lines, email: email || null, message: problems.join('; ') });
  }
  return { rows, errors };
}

/** One CSV record as the JSON row it stands for: empty cells set nothing. */
function rowFromCells(columns: string[], cells: string[]): ImportRow {
  const row: Record<string, unknown> = { email: '' };
  const custom: Array<[string, string]> = [];
  columns.forEach((column, i) => {
    const value = (cells[i] ?? '').trim();
    if (value === '' || column === '') return;
    if (column === 'tags') row.tags = [...new Set(value.split(';').map((t) => t.trim()).filter(Boolean))];
    else if (knownColumns.has(column)) row[column] = value;
    else custom.push([column, value]);
  });
  // fromEntries makes every column an own field, `__proto__` and `constructor` included.
  if (custom.length > 0) row.custom_fields = Object.fromEntries(custom);
  return row as ImportRow;
}

/**
 * Imports readable rows in order: an address that exists (or came earlier in the file) is skipped or,
 * with `updateExisting`, updated; a row past the plan's contact quota fails and is reported.
 */
export function importRows(contacts: ContactsStore, userId: string, plan: Plan, rows: NumberedRow[], options: ImportOptions) {
  const tally = { created: 0, updated: 0, skipped: 0, errors: [] as RowError[], createdIds: [] as string[] };
  for (const { row, fields: given } of rows) {
    const fields: ContactFields = {
      firstName: given.first_name,
      lastName: given.last_name,
      phone: given.phone,
      status: given.status,
      customFields: given.custom_fields,
    };
    const tags = [...options.tags, ...(given.tags ?? [])];
    const existing = contacts.byEmail(userId, given.email);
    if (existing) {
      if (!options.updateExisting) {
        tally.skipped++;
        continue;
      }
      contacts.update(existing, { ...fields, tags: [...existing.tags, ...tags] });
      tally.updated++;
      continue;
    }
    if (!withinQuota(plan, 'contacts', contacts.count(userId))) {
      tally.errors.push({ row, email: given.email, message: `The contact limit of the ${planNames[plan]} plan is reached` });
      continue;
    }
    tally.createdIds.push(contacts.create(userId, { ...fields, email: given.email, tags }).id);
    tally.created++;
  }
  return tally;
}
