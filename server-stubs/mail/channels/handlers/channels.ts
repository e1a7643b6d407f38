import { mailHandlers, type MailDeps } from '../../context.js';
import { requireFeature } from '../../identity/plans.js';
import type { WhatsAppMessage } from '../adapters.js';
import { approvedTemplate } from '../whatsapp-templates.js';
import { invalidRequest } from '../../../lib/failures.js';

/**
 * WhatsApp and push sends (Max plan, scope `send`). The plan is checked before the channel's
 * set-up, so a lower plan hears what to upgrade to rather than what to configure.
 */
export function channelHandlers({ identity, contacts, channels }: MailDeps) {
  const planOf = (userId: string) => identity.user(userId)?.plan ?? 'free';

  return mailHandlers({
    sendWhatsAppMessage: async ({ principal, body, fail }) => {
      const userId = principal.userId;
      requireFeature(planOf(userId), 'whatsapp');
      if (!channels.isConfigured(userId, 'whatsapp')) fail(403, undefined, 'WhatsApp channel not configured');
      const contactId = body.contact_id ?? null;
      // Only 400 and 422 are declared here: a link to a contact that is not the caller's is a field error of the body.
      if (contactId !== null && !contacts.get(userId, contactId)) invalidRequest({ fieldErrors: { contact_id: ['No contact with this id'] } });

      let message: WhatsAppMessage;
      if (body.template_name !== undefined) {
        const language = body.language ?? 'en';
        const template = approvedTemplate(body.template_name, language) ?? fail(422, undefined, 'Template not found', { details: { fieldErrors: { template_name: [`No approved template ${body.template_name} in language ${language}`] } } });
        const parameters = (body.parameters ?? []).map((p) => p.text);
        if (parameters.length !== template.parameters) {
          fail(422, undefined, 'Template parameters mismatch', { details: { fieldErrors: { parameters: [`Template ${template.name} takes ${template.parameters} parameter(s); ${parameters.length} given`] } } });
        }
        message = { kind: 'template', to: body.to, contactId, templateName: template.name, language, parameters };
      } else {
        if (!channels.sessionOpen(userId, body.to)) {
          fail(422, undefined, 'Outside the 24-hour session window', { details: { fieldErrors: { message: ['Free-form messages need an inbound message from this number in the last 24 hours; send an approved template instead'] } } });
        }
        message = { kind: 'text', to: body.to, contactId, text: body.message! };
      }
      const sent = await channels.sendWhatsApp(userId, message);
      return { status: 200, body: { success: true, message_id: sent.messageId, status: 'sent', channel: 'whatsapp' } };
    },

    sendPushNotification: async ({ principal, body, fail }) => {
      const userId = principal.userId;
      requireFeature(planOf(userId), 'push');
      if (!channels.isConfigured(userId, 'push')) fail(403, undefined, 'Push notifications not enabled');
      const contact = contacts.get(userId, body.contact_id) ?? fail(404, undefined, 'Contact not found');
      if (contact.pushTokens.length === 0) fail(404, undefined, 'Contact has no push tokens');
      const { title, message, url, icon, data } = body;
      const deliveries = await channels.sendPush(userId, contact.id, contact.pushTokens, { title, message, url, icon, data });
      const delivered = deliveries.filter((d) => d.delivered).length;
      return { status: 200, body: { success: true, delivered, failed: deliveries.length - delivered, device_count: deliveries.length, channel: 'push' } };
    },
  });
}
