import type { components } from '../../../../generated/mail/types.gen.js';
import type { Fail } from '../../../lib/handlers.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { iso, pageOf } from '../../wire-format.js';
import { MissingVariables, placeholders, RenderFailed, renderParts, TemplateSyntaxError, type TemplateParts } from '../render.js';
import type { TemplateRecord } from '../templates-store.js';
import { invalidRequest } from '../../../lib/failures.js';

type Template = components['schemas']['Template'];

/** The contract's pattern for a listed placeholder name (Template.variables). */
const placeholderName = /^[A-Za-z_][A-Za-z0-9_.]*$/;

function shown(t: TemplateRecord): Template {
  return {
    id: t.id,
    name: t.name,
    subject: t.subject,
    html: t.html,
    text: t.text,
    variables: [...t.variables],
    created_at: iso(t.createdAt)!,
    updated_at: iso(t.updatedAt)!,
  };
}

const syntaxRefusal = (error: TemplateSyntaxError) => ({ fieldErrors: { [error.field]: [error.message] } });

/** The placeholder names of a template to be saved; a template that does not parse is a field error (400). */
function checkedPlaceholders(parts: TemplateParts, fail: Fail<400>): string[] {
  let names: string[];
  try {
    names = placeholders(parts);
  } catch (error) {
    if (error instanceof TemplateSyntaxError) invalidRequest(syntaxRefusal(error));
    throw error;
  }
  const unnamed = names.filter((name) => !placeholderName.test(name));
  if (unnamed.length > 0) {
    invalidRequest({ formErrors: unnamed.map((name) => `Placeholder names are letters, digits and underscores: ${name}`) });
  }
  return names;
}

/** Templates: list (per user, newest first), create, render (stored or inline) with liquidjs. */
export function templateHandlers({ templates }: MailDeps) {
  return mailHandlers({
    listTemplates: ({ principal, query }) => ({ status: 200, body: { success: true, ...pageOf(templates.of(principal.userId).map(shown), query.page, query.limit) } }),

    createTemplate: ({ principal, body, fail }) => {
      const parts = { subject: body.subject, html: body.html, text: body.text ?? null };
      const variables = checkedPlaceholders(parts, fail);
      const record = templates.create(principal.userId, { name: body.name, ...parts, variables });
      return { status: 201, body: { success: true, data: shown(record) } };
    },

    renderTemplate: async ({ principal, body, fail }) => {
      const parts: TemplateParts =
        body.template_id !== undefined
          ? (templates.get(principal.userId, body.template_id) ?? fail(404, undefined, 'Template not found'))
          : { subject: body.subject, html: body.html, text: body.text ?? null };
      try {
        const data = await renderParts({ subject: parts.subject, html: parts.html, text: parts.text }, body.variables ?? {});
        return { status: 200, body: { success: true, data } };
      } catch (error) {
        if (error instanceof MissingVariables) {
          fail(422, undefined, 'Parameter mismatch', { details: { fieldErrors: { variables: error.names.map((name) => `Missing value for ${name}`) } } });
        }
        if (error instanceof RenderFailed) fail(422, undefined, error.message);
        // Only an inline template can fail to parse: a stored one was parsed when it was saved.
        if (error instanceof TemplateSyntaxError) invalidRequest(syntaxRefusal(error));
        throw error;
      }
    },
  });
}
