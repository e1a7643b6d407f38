import type { ContactRecord } from '../audience/contacts-store.js';
import { placeholders, renderParts, type TemplateParts } from '../content/render.js';
import type { MessageParts } from './campaign-runs.js';

/**
 * The values a campaign copy is written with: the contact's fields by their API names, its custom
 * fields also at the top level (`{{company}}`), and `contact` for the whole. Unlike a render
 * request, a campaign goes to contacts whose data differ, so a placeholder a contact has no value
 * for is written empty rather than refused (designed; the contract says so).
 */
export function variablesFor(contact: ContactRecord): Record<string, unknown> {
  const fields = {
    email: contact.email,
    first_name: contact.firstName ?? '',
    last_name: contact.lastName ?? '',
    phone: contact.phone ?? '',
    status: contact.status,
    engagement_tier: contact.engagementTier ?? '',
    tags: [...contact.tags],
    custom_fields: { ...contact.customFields },
  };
  return { ...contact.customFields, ...fields, contact: fields };
}

/** One recipient's copy, or why it cannot be written (a render limit, a failing filter). */
export async function personalized(parts: MessageParts, contact: ContactRecord): Promise<MessageParts | { error: string }> {
  const template: TemplateParts = { subject: parts.subject, html: parts.html ?? '', text: parts.text };
  const values = variablesFor(contact);
  try {
    for (const name of placeholders(template)) if (!Object.hasOwn(values, name)) values[name] = '';
    const copy = await renderParts(template, values);
    return { subject: copy.subject, html: parts.html === null ? null : copy.html, text: copy.text };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
