import type { components } from '../../../../generated/mail/types.gen.js';
import type { Fail } from '../../../lib/handlers.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { iso, pageOf } from '../../wire-format.js';
import { placeholders, TemplateSyntaxError } from '../../content/render.js';
import type { Outbox } from '../../sending/outbox.js';
import type { EngagementLog } from '../../tracking/engagement-log.js';
import { refuseForeignSender, refuseOverQuota } from '../../sending/sender-rules.js';
import { editable, type CampaignFields, type CampaignRecord } from '../campaigns-store.js';
import { invalidRequest } from '../../../lib/failures.js';

type Campaign = components['schemas']['Campaign'];
type UpdateRequest = components['schemas']['UpdateCampaignRequest'];

/** Counters computed from the copies in the outbox and what recipients did with them; bounces and complaints arrive with the provider webhooks. */
function statsOf(c: CampaignRecord, outbox: Outbox, engagement: EngagementLog): Campaign['stats'] {
  const copies = outbox.ofCampaign(c.id);
  return {
    recipients: c.recipients,
    sent: copies.length,
    delivered: copies.filter((m) => m.status === 'delivered').length,
    opened: copies.filter((m) => engagement.openedAt(m.id) !== undefined).length,
    clicked: copies.filter((m) => engagement.clickedAt(m.id) !== undefined).length,
    bounced: 0,
    complained: 0,
    unsubscribed: 0,
  };
}

function shown(c: CampaignRecord, outbox: Outbox, engagement: EngagementLog): Campaign {
  return {
    id: c.id,
    name: c.name,
    subject: c.subject,
    from: c.from.name === undefined ? { email: c.from.email } : { email: c.from.email, name: c.from.name },
    html: c.html,
    text: c.text,
    template_id: c.templateId,
    segment_id: c.segmentId,
    status: c.status,
    scheduled_at: iso(c.scheduledAt),
    sent_at: iso(c.sentAt),
    stats: statsOf(c, outbox, engagement),
    created_at: iso(c.createdAt)!,
    updated_at: iso(c.updatedAt)!,
  };
}

const fieldsOf = (body: Omit<UpdateRequest, 'status'>): CampaignFields => ({
  name: body.name,
  subject: body.subject,
  from: body.from,
  html: body.html,
  text: body.text,
  templateId: body.template_id,
  segmentId: body.segment_id,
});

/** Campaigns: CRUD and send (now, scheduled, or into the sandbox) through `CampaignRuns`. */
export function campaignHandlers({ campaigns, abTests, campaignRuns, segments, identity, outbox, engagement, clock }: MailDeps) {
  const find = (userId: string, id: string, fail: Fail<404>) => campaigns.get(userId, id) ?? fail(404, undefined, 'Campaign not found');

  /** Subject and bodies are Liquid templates (as templates are): one that does not parse is a field error now, not a failed send later. */
  const checkSyntax = (fields: CampaignFields, fail: Fail<400>) => {
    try {
      placeholders({ subject: fields.subject ?? '', html: fields.html ?? '', text: fields.text ?? null });
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      invalidRequest({ fieldErrors: { [error.field]: [error.message] } });
    }
  };

  /** A template or segment the request names must be the user's; the resulting body is inline html or a template, not both. */
  const checkReferences = (userId: string, named: CampaignFields, body: { templateId: string | null; html: string | null }, fail: Fail<400 | 404>) => {
    if (named.templateId && !campaignRuns.templateExists(userId, named.templateId)) fail(404, undefined, 'Template not found');
    if (named.segmentId && !segments.get(userId, named.segmentId)) fail(404, undefined, 'Segment not found');
    if (body.templateId && body.html) invalidRequest({ formErrors: ['Give html or template_id, not both'] });
  };

  return mailHandlers({
    listCampaigns: ({ principal, query }) => {
      const listed = campaigns.of(principal.userId).filter((c) => query.status === undefined || c.status === query.status);
      return { status: 200, body: { success: true, ...pageOf(listed.map((c) => shown(c, outbox, engagement)), query.page, query.limit) } };
    },

    createCampaign: ({ principal, body, fail }) => {
      refuseForeignSender(identity, principal, body.from.email, fail);
      const fields = fieldsOf(body);
      checkSyntax(fields, fail);
      checkReferences(principal.userId, fields, { templateId: fields.templateId ?? null, html: fields.html ?? null }, fail);
      const record = campaigns.create(principal.userId, { ...fields, name: body.name, subject: body.subject, from: body.from });
      return { status: 201, body: { success: true, data: shown(record, outbox, engagement) } };
    },

    updateCampaign: ({ principal, query, body, fail }) => {
      const record = find(principal.userId, query.id, fail);
      if (!editable.has(record.status)) fail(409, undefined, 'Campaign can no longer be changed');
      const { status, ...rest } = body;
      const fields = fieldsOf(rest);
      checkSyntax(fields, fail);
      if (fields.from) refuseForeignSender(identity, principal, fields.from.email, fail);
      const after = { templateId: fields.templateId === undefined ? record.templateId : fields.templateId, html: fields.html === undefined ? record.html : fields.html };
      checkReferences(principal.userId, fields, after, fail);
      campaigns.update(record, { ...fields, ...(status === 'cancelled' && { status }) });
      return { status: 200, body: { success: true, data: shown(record, outbox, engagement) } };
    },

    deleteCampaign: ({ principal, query, fail }) => {
      const record = find(principal.userId, query.id, fail);
      if (record.status === 'sending') fail(409, undefined, 'Campaign is sending and cannot be deleted');
      campaigns.delete(principal.userId, record.id);
      abTests.dropCampaign(record.id);
      return { status: 200, body: { success: true } };
    },

    sendCampaign: async ({ principal, params, body, headers, fail }) => {
      const record = find(principal.userId, params.id, fail);
      if (record.status === 'cancelled') fail(409, undefined, 'Campaign is cancelled');
      if (!editable.has(record.status)) fail(409, undefined, 'Campaign already sent');
      const problem = campaignRuns.unsendable(record);
      if (problem) fail(422, undefined, problem);
      refuseForeignSender(identity, principal, record.from.email, fail);
      const sandbox = headers['x-service-sandbox'] === true;
      const at = body?.scheduled_at === undefined ? undefined : Date.parse(body.scheduled_at);
      if (at !== undefined && at <= clock.now()) invalidRequest({ fieldErrors: { scheduled_at: ['Must be in the future'] } });
      if (at !== undefined) campaignRuns.schedule(record, at, sandbox);
      else {
        const recipients = campaignRuns.recipientsOf(record);
        if (!sandbox) refuseOverQuota(identity, outbox, principal.userId, recipients.length, fail);
        await campaignRuns.start(record, sandbox, recipients);
      }
      return { status: 202, body: { success: true, data: shown(record, outbox, engagement) } };
    },
  });
}
