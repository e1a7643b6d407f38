import validator from 'validator';
import type { components } from '../../../generated/mail/types.gen.js';
import type { ContactRecord } from './contacts-store.js';

/**
 * The segment filter engine: checks filter criteria a client sent (what the schema cannot say) and
 * evaluates them over a user's contacts. The semantics are documented for clients in
 * `schemas/mail/FilterRule.json` and `FilterGroup.json`; keep the two in step.
 */

export type FilterGroup = components['schemas']['FilterGroup'];
export type FilterRule = components['schemas']['FilterRule'];
type Operator = FilterRule['operator'];
type Value = FilterRule['value'];

/** Groups nest at most this deep, the top group counting as 1 (designed: the schema sets no bound). */
export const maxGroupDepth = 5;

const textFields = { email: 'email', first_name: 'firstName', last_name: 'lastName', phone: 'phone', status: 'status', engagement_tier: 'engagementTier' } as const;
const dateFields = { created_at: 'createdAt', updated_at: 'updatedAt' } as const;
const customPrefix = 'custom_fields.';

/** Field names as the API shows a contact, plus `custom_fields.<key>`. */
export const filterableFields = [...Object.keys(textFields), 'tags', ...Object.keys(dateFields), `${customPrefix}<key>`];

const isGroup = (entry: FilterRule | FilterGroup): entry is FilterGroup => 'rules' in entry;

// ---------------------------------------------------------------------------------------------
// Dates: one parser for rule values and for text a contact holds, so both sides agree.

const dateOnly = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar date (`2026-01-01`, midnight UTC) or an RFC 3339 date-time with `Z` or an offset; anything else is not a date. */
export function parseDate(text: string): number | undefined {
  const trimmed = text.trim();
  const ok = dateOnly.test(trimmed) ? validator.isISO8601(trimmed, { strict: true }) : validator.isRFC3339(trimmed);
  if (!ok) return undefined;
  const ms = Date.parse(trimmed);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A number, or text that is one (custom fields imported from files hold numbers as text). */
function numberOf(x: unknown): number | undefined {
  if (typeof x === 'number') return Number.isFinite(x) ? x : undefined;
  if (typeof x === 'string' && validator.isFloat(x.trim())) return Number(x.trim());
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Checking criteria

const needs: Record<Operator, { check: (v: Value) => boolean; message: string }> = {
  equals: { check: isScalar, message: 'equals needs a string, number or boolean value (use is_empty for empty values)' },
  not_equals: { check: isScalar, message: 'not_equals needs a string, number or boolean value (use is_not_empty for empty values)' },
  contains: { check: isText, message: 'contains needs a non-empty string value' },
  not_contains: { check: isText, message: 'not_contains needs a non-empty string value' },
  starts_with: { check: isText, message: 'starts_with needs a non-empty string value' },
  ends_with: { check: isText, message: 'ends_with needs a non-empty string value' },
  greater_than: { check: isNumberOrDate, message: 'greater_than needs a number or an ISO 8601 date (2026-01-01 or 2026-01-01T00:00:00Z)' },
  less_than: { check: isNumberOrDate, message: 'less_than needs a number or an ISO 8601 date (2026-01-01 or 2026-01-01T00:00:00Z)' },
  before: { check: isDate, message: 'before needs an ISO 8601 date (2026-01-01 or 2026-01-01T00:00:00Z)' },
  after: { check: isDate, message: 'after needs an ISO 8601 date (2026-01-01 or 2026-01-01T00:00:00Z)' },
  is_empty: { check: () => true, message: '' },
  is_not_empty: { check: () => true, message: '' },
  in: { check: isList, message: 'in needs a non-empty list of values' },
  not_in: { check: isList, message: 'not_in needs a non-empty list of values' },
};

function isScalar(v: Value): boolean {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}
function isText(v: Value): boolean {
  return typeof v === 'string' && v.length > 0;
}
function isDate(v: Value): boolean {
  return typeof v === 'string' && parseDate(v) !== undefined;
}
function isNumberOrDate(v: Value): boolean {
  return (typeof v === 'number' && Number.isFinite(v)) || isDate(v);
}
function isList(v: Value): boolean {
  return Array.isArray(v) && v.length > 0;
}

function knownField(field: string): boolean {
  if (field in textFields || field in dateFields || field === 'tags') return true;
  return field.startsWith(customPrefix) && field.length > customPrefix.length;
}

/**
 * What is wrong with the criteria beyond their schema, by path as the validator names paths
 * (`filter_criteria.rules.1.value`); empty when they can be evaluated.
 */
export function criteriaProblems(group: FilterGroup, path = 'filter_criteria'): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  const note = (at: string, message: string) => (problems[at] ??= []).push(message);
  const walk = (g: FilterGroup, at: string, depth: number) => {
    if (depth > maxGroupDepth) return note(at, `Groups nest at most ${maxGroupDepth} levels deep`);
    g.rules.forEach((entry, i) => {
      const here = `${at}.rules.${i}`;
      if (isGroup(entry)) return walk(entry, here, depth + 1);
      if (!knownField(entry.field)) note(`${here}.field`, `Unknown field; filterable fields: ${filterableFields.join(', ')}`);
      const need = needs[entry.operator];
      if (!need.check(entry.value)) note(`${here}.value`, need.message);
    });
  };
  walk(group, path, 1);
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Evaluating criteria

/** What a contact holds in a field: text, an instant (epoch ms), a list, or for custom fields any JSON. */
function fieldOf(contact: ContactRecord, field: string): unknown {
  if (field in textFields) return contact[textFields[field as keyof typeof textFields]];
  if (field in dateFields) return { instant: contact[dateFields[field as keyof typeof dateFields]] };
  if (field === 'tags') return contact.tags;
  return Object.hasOwn(contact.customFields, field.slice(customPrefix.length)) ? contact.customFields[field.slice(customPrefix.length)] : undefined;
}

type Instant = { instant: number };
const isInstant = (x: unknown): x is Instant => typeof x === 'object' && x !== null && 'instant' in x;

function isEmptyValue(x: unknown): boolean {
  if (x === undefined || x === null) return true;
  if (typeof x === 'string') return x.trim() === '';
  if (Array.isArray(x)) return x.length === 0;
  if (isInstant(x)) return false;
  if (typeof x === 'object') return Object.keys(x).length === 0;
  return false;
}

const lower = (s: string) => s.toLowerCase();

/** Text compares without regard to letter case; numbers and booleans by value; a date field with a date value by instant. */
function same(x: unknown, v: unknown): boolean {
  if (isInstant(x)) return typeof v === 'string' && parseDate(v) === x.instant;
  if (typeof x === 'string' && typeof v === 'string') return lower(x) === lower(v);
  if (typeof x === 'number' && typeof v === 'number') return x === v;
  if (typeof x === 'boolean' && typeof v === 'boolean') return x === v;
  return false;
}

/** The instant a field value stands for: a date field, or text that parses as a date. */
function instantOf(x: unknown): number | undefined {
  if (isInstant(x)) return x.instant;
  if (typeof x === 'string') return parseDate(x);
  return undefined;
}

/** Compares numbers with numbers and dates with dates; any other pairing is no match (never an error). */
function compare(x: unknown, v: Value): number | undefined {
  if (typeof v === 'number') {
    const n = isInstant(x) ? undefined : numberOf(x);
    return n === undefined ? undefined : n - v;
  }
  const at = typeof v === 'string' ? parseDate(v) : undefined;
  const xt = instantOf(x);
  return at === undefined || xt === undefined ? undefined : xt - at;
}

/** The positive operators on one scalar value; on a list, a positive operator matches when any element does. */
function holds(operator: Operator, x: unknown, v: Value): boolean {
  if (Array.isArray(x)) {
    if (operator === 'contains') return x.some((e) => same(e, v));
    return x.some((e) => holds(operator, e, v));
  }
  switch (operator) {
    case 'equals':
      return same(x, v);
    case 'contains':
      return typeof x === 'string' && typeof v === 'string' && lower(x).includes(lower(v));
    case 'starts_with':
      return typeof x === 'string' && typeof v === 'string' && lower(x).startsWith(lower(v));
    case 'ends_with':
      return typeof x === 'string' && typeof v === 'string' && lower(x).endsWith(lower(v));
    case 'greater_than':
    case 'after': {
      const d = compare(x, v);
      return d !== undefined && d > 0;
    }
    case 'less_than':
    case 'before': {
      const d = compare(x, v);
      return d !== undefined && d < 0;
    }
    case 'in':
      return Array.isArray(v) && v.some((item) => same(x, item));
    default:
      return false;
  }
}

const negations: Partial<Record<Operator, Operator>> = { not_equals: 'equals', not_contains: 'contains', not_in: 'in' };

function ruleMatches(rule: FilterRule, contact: ContactRecord): boolean {
  const x = fieldOf(contact, rule.field);
  if (rule.operator === 'is_empty') return isEmptyValue(x);
  if (rule.operator === 'is_not_empty') return !isEmptyValue(x);
  const positive = negations[rule.operator];
  // A negated operator matches exactly the contacts its positive one does not, empty fields included.
  if (positive) return !holds(positive, x, rule.value);
  return holds(rule.operator, x, rule.value);
}

export function matches(group: FilterGroup, contact: ContactRecord): boolean {
  const test = (entry: FilterRule | FilterGroup) => (isGroup(entry) ? matches(entry, contact) : ruleMatches(entry, contact));
  return group.operator === 'AND' ? group.rules.every(test) : group.rules.some(test);
}

/** The contacts the criteria select, in the order given. */
export function evaluate(group: FilterGroup, contacts: readonly ContactRecord[]): ContactRecord[] {
  return contacts.filter((c) => matches(group, c));
}
