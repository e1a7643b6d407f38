import { randomUUID } from 'node:crypto';
import type { components } from '../../../../generated/mail/types.gen.js';
import type { Fail } from '../../../lib/handlers.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { iso, pageOf } from '../../wire-format.js';
import { planNames, withinQuota } from '../../identity/plans.js';
import { csvRows, importRows, jsonRows } from '../contact-import.js';
import type { ContactFields, ContactRecord } from '../contacts-store.js';
import { invalidRequest } from '../../../lib/failures.js';

type Contact = components['schemas']['Contact'];
type ImportRequest = components['schemas']['ImportContactsRequest'];
type UpdateRequest = components['schemas']['UpdateContactRequest'];
type Refuse = Fail<400 | 404>;

function shown(c: ContactRecord): Contact {
  return {
    id: c.id,
    email: c.email,
    first_name: c.firstName,
    last_name: c.lastName,
    status: c.status,
    engagement_tier: c.engagementTier,
    phone: c.phone,
    tags: [...c.tags],
    custom_fields: { ...c.customFields },
    push_tokens: c.pushTokens.map((t) => ({ ...t })),
    created_at: iso(c.createdAt)!,
    updated_at: iso(c.updatedAt)!,
  };
}

function fieldsOf(body: UpdateRequest): ContactFields {
  return {
    email: body.email,
    firstName: body.first_name,
    lastName: body.last_name,
    phone: body.phone,
    status: body.status,
    tags: body.tags,
    customFields: body.custom_fields,
    pushTokens: body.push_tokens,
  };
}

type ImportQuery = { update_existing?: boolean; tags?: string[] };

/** A CSV upload carries the import-wide options as query parameters. */
function csvUpload(text: string, query: ImportQuery) {
  const { rows, errors } = csvRows(text);
  return { rows, errors, options: { updateExisting: query.update_existing ?? false, tags: query.tags ?? [] } };
}

/** A JSON body carries the options itself; the same options in the query would be ambiguous. */
function jsonUpload(body: ImportRequest, query: ImportQuery, fail: Fail<400>) {
  const misplaced = (['update_existing', 'tags'] as const).filter((name) => query[name] !== undefined);
  if (misplaced.length > 0) {
    const fieldErrors = Object.fromEntries(misplaced.map((name) => [name, [`Only for CSV uploads; a JSON body carries ${name} itself`]]));
    invalidRequest({ fieldErrors });
  }
  return { rows: jsonRows(body), errors: [], options: { updateExisting: body.update_existing ?? false, tags: body.tags ?? [] } };
}

/** Contacts: list, create, update (by path or query id), delete, import (JSON or CSV rows, handled at once), and the suppression list. */
export function contactHandlers({ contacts, events, identity, clock }: MailDeps) {
  const planOf = (userId: string) => identity.user(userId)?.plan ?? 'free';

  const update: (userId: string, id: string, body: UpdateRequest, fail: Refuse) => { status: 200; body: { success: true; data: Contact } } = (userId, id, body, fail) => {
    const record = contacts.get(userId, id) ?? fail(404, undefined, 'Contact not found');
    const other = body.email === undefined ? undefined : contacts.byEmail(userId, body.email);
    // The updates declare no 409: an address another contact has is a field error of the body.
    if (other && other.id !== record.id) invalidRequest({ fieldErrors: { email: ['Another contact has this address'] } });
    const wasUnsubscribed = record.status === 'unsubscribed';
    const changedFields = contacts.update(record, fieldsOf(body));
    events.emit('contact.updated', { userId, contactId: record.id, changedFields });
    if (!wasUnsubscribed && record.status === 'unsubscribed') events.emit('contact.unsubscribed', { userId, contactId: record.id });
    return { status: 200 as const, body: { success: true as const, data: shown(record) } };
  };

  return mailHandlers({
    listContacts: ({ principal, query }) => {
      const email = (query.email as string | undefined)?.toLowerCase();
      const listed = contacts
        .of(principal.userId)
        .filter((c) => (query.status === undefined || c.status === query.status) && (email === undefined || c.email.toLowerCase() === email) && (query.tag === undefined || c.tags.includes(query.tag)));
      return { status: 200, body: { success: true, ...pageOf(listed.map(shown), query.page, query.limit) } };
    },

    createContact: ({ principal, body, fail }) => {
      const userId = principal.userId;
      if (contacts.byEmail(userId, body.email)) fail(409, undefined, 'Contact already exists');
      const plan = planOf(userId);
      if (!withinQuota(plan, 'contacts', contacts.count(userId))) fail(403, undefined, `Contact limit reached for your plan (${planNames[plan]})`);
      const record = contacts.create(userId, { ...fieldsOf(body), email: body.email });
      events.emit('contact.created', { userId, contactId: record.id });
      return { status: 201, body: { success: true, data: shown(record) } };
    },

    updateContact: ({ principal, params, body, fail }) => update(principal.userId, params.id, body, fail),
    updateContactByQuery: ({ principal, query, body, fail }) => update(principal.userId, query.id, body, fail),

    deleteContact: ({ principal, query, fail }) => {
      if (!contacts.delete(principal.userId, query.id)) fail(404, undefined, 'Contact not found');
      events.emit('contact.deleted', { userId: principal.userId, contactId: query.id });
      return { status: 200, body: { success: true } };
    },

    listSuppressions: ({ principal, query }) => {
      const userId = principal.userId;
      const listed = contacts
        .suppressionsOf(userId)
        .filter((s) => query.reason === undefined || s.reason === query.reason)
        .map((s) => ({ email: s.email, reason: s.reason, contact_id: contacts.byEmail(userId, s.email)?.id ?? null, created_at: iso(s.createdAt)! }));
      return { status: 200, body: { success: true, ...pageOf(listed, query.page, query.limit) } };
    },

    importContacts: ({ principal, body, query, fail }) => {
      const userId = principal.userId;
      const upload = typeof body === 'string' ? csvUpload(body, query) : jsonUpload(body, query, fail);
      const result = importRows(contacts, userId, planOf(userId), upload.rows, upload.options);
      const errors = [...upload.errors, ...result.errors].sort((a, b) => a.row - b.row);
      const importId = randomUUID();
      const at = iso(clock.now())!;
      for (const id of result.createdIds) events.emit('contact.created', { userId, contactId: id });
      const counts = { created: result.created, updated: result.updated, skipped: result.skipped, failed: errors.length };
      events.emit('contact.imported', { userId, importId, ...counts });
      return {
        status: 202,
        body: {
          success: true,
          data: { import_id: importId, status: 'completed', total: upload.rows.length + upload.errors.length, ...counts, errors, created_at: at, completed_at: at },
        },
      };
    },
  });
}
