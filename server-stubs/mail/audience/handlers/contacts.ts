import { randomUUID } from 'node:crypto';
import type { components } from '../../../../generated/mail/types.gen.js';
import type { Fail } from '../../../lib/handlers.js';
import type { MailDeps, MailHandlers } from '../../context.js';
import { iso, pageOf } from '../../identity/handlers/paging.js';
import { planNames, withinQuota } from '../../identity/plans.js';
import type { ContactFields, ContactRecord, ContactsStore } from '../contacts-store.js';

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

/** Contacts: list, create, update (by path or query id), delete, import (JSON rows, handled at once). */
export function contactHandlers({ contacts, events, identity, clock }: MailDeps) {
  const planOf = (userId: string) => identity.user(userId)?.plan ?? 'free';

  const update: (userId: string, id: string, body: UpdateRequest, fail: Refuse) => { status: 200; body: { success: true; data: Contact } } = (userId, id, body, fail) => {
    const record = contacts.get(userId, id) ?? fail(404, undefined, 'Contact not found');
    const other = body.email === undefined ? undefined : contacts.byEmail(userId, body.email);
    // The updates declare no 409: an address another contact has is a field error of the body.
    if (other && other.id !== record.id) fail(400, undefined, 'Validation failed', { details: { fieldErrors: { email: ['Another contact has this address'] } } });
    const wasUnsubscribed = record.status === 'unsubscribed';
    contacts.update(record, fieldsOf(body));
    events.emit('contact.updated', { userId, contactId: record.id });
    if (!wasUnsubscribed && record.status === 'unsubscribed') events.emit('contact.unsubscribed', { userId, contactId: record.id });
    return { status: 200 as const, body: { success: true as const, data: shown(record) } };
  };

  return {
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

    importContacts: ({ principal, body }) => {
      const userId = principal.userId;
      const result = importRows(contacts, userId, planOf(userId), body);
      const importId = randomUUID();
      const at = iso(clock.now())!;
      for (const id of result.createdIds) events.emit('contact.created', { userId, contactId: id });
      events.emit('contact.imported', { userId, importId, created: result.created, updated: result.updated, skipped: result.skipped, failed: result.failed });
      return {
        status: 202,
        body: {
          success: true,
          data: { import_id: importId, status: 'completed', total: body.contacts.length, created: result.created, updated: result.updated, skipped: result.skipped, failed: result.failed, created_at: at, completed_at: at },
        },
      };
    },
  } satisfies Partial<MailHandlers>;
}

/**
 * Handles every row: the body was validated whole before this runs, so a malformed file never
 * reaches here and nothing of it is imported. A row whose address exists (or appeared earlier in
 * the file) is skipped or, with `update_existing`, updated; a row past the plan's contact quota fails.
 */
function importRows(contacts: ContactsStore, userId: string, plan: Parameters<typeof withinQuota>[0], body: ImportRequest) {
  const tally = { created: 0, updated: 0, skipped: 0, failed: 0, createdIds: [] as string[] };
  for (const row of body.contacts) {
    const fields: ContactFields = {
      firstName: row.first_name,
      lastName: row.last_name,
      phone: row.phone,
      status: row.status,
      customFields: row.custom_fields,
    };
    const existing = contacts.byEmail(userId, row.email);
    const tags = [...(body.tags ?? []), ...(row.tags ?? [])];
    if (existing) {
      if (!body.update_existing) {
        tally.skipped++;
        continue;
      }
      contacts.update(existing, { ...fields, tags: [...existing.tags, ...tags] });
      tally.updated++;
      continue;
    }
    if (!withinQuota(plan, 'contacts', contacts.count(userId))) {
      tally.failed++;
      continue;
    }
    tally.createdIds.push(contacts.create(userId, { ...fields, email: row.email, tags }).id);
    tally.created++;
  }
  return tally;
}
