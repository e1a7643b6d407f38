import { mailHandlers, type MailDeps } from '../../context.js';
import { parseFeedbackReport, UnparseableReport } from '../arf.js';
import { applyMailServerAEvent } from '../mailserver-a.js';
import { applyMailServerBEvent, UnusableEvent } from '../mailserver-b.js';
import { RecipientOutcomes, sentMessage } from '../recipient-outcomes.js';
import { canonicalLanguage, markingTranslator, type Translator } from '../translation.js';
import { invalidRequest } from '../../../lib/failures.js';

/** The content types the feedback-loop webhook takes, as its health check publishes them. */
const feedbackLoopAccepts: ['message/rfc822', 'application/json', 'text/plain'] = ['message/rfc822', 'application/json', 'text/plain'];

/** `{raw?, email?, message?, body?}`: alternative names of the raw report, read in this order. */
function rawReportOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  const fields = (body ?? {}) as Record<string, unknown>;
  const raw = [fields.raw, fields.email, fields.message, fields.body].find((value) => typeof value === 'string');
  return raw as string | undefined;
}

/**
 * Feedback-loop reports suppress the complaining address unless they say the message was not
 * spam; every other RFC 5965 type (abuse, fraud, virus, other) is a complaint.
 */
const isComplaint = (feedbackType: string) => feedbackType !== 'not-spam';

/** Provider and internal webhooks: feedback loop, mail servers A and B, auto-translate. */
export function providerHandlers(deps: MailDeps, translator: Translator = markingTranslator) {
  const outcomes = new RecipientOutcomes(deps);
  return mailHandlers({
    getFeedbackLoopHealth: async () => ({ status: 200, body: { status: 'ok' as const, accepts: feedbackLoopAccepts } }),

    receiveFeedbackReport: async ({ body, fail }) => {
      const raw = rawReportOf(body);
      if (!raw?.trim()) return fail(400, undefined, 'Unparseable feedback report: the body carries no report');
      let report;
      try {
        report = await parseFeedbackReport(raw);
      } catch (error) {
        if (error instanceof UnparseableReport) return fail(400, undefined, `Unparseable feedback report: ${error.message}`);
        throw error;
      }
      const answer = { success: true as const, feedbackType: report.feedbackType, recipient: report.recipient };
      if (!deps.providerLog.firstTime(report.key)) return { status: 200, body: { ...answer, suppressed: false } };
      const message = sentMessage(deps, report.messageReference);
      deps.providerLog.recordEvent({
        source: 'fbl',
        kind: 'complained',
        messageId: message?.id ?? null,
        userIds: message ? [message.userId] : [],
        email: report.recipient,
        details: { feedbackType: report.feedbackType },
      });
      const suppressed = isComplaint(report.feedbackType) && outcomes.complained(message, report.recipient);
      return { status: 200, body: { ...answer, suppressed } };
    },

    receiveMailServerAEvent: async ({ body }) => {
      applyMailServerAEvent(deps, outcomes, body.payload);
      return { status: 200, body: { success: true as const } };
    },

    receiveMailServerBEvent: async ({ body, fail }) => {
      try {
        applyMailServerBEvent(deps, outcomes, body);
      } catch (error) {
        if (error instanceof UnusableEvent) return fail(400, undefined, `Unsupported event: ${error.message}`);
        throw error;
      }
      return { status: 200, body: { success: true as const } };
    },

    translateStoredEmail: async ({ body, fail }) => {
      const targetLanguage = canonicalLanguage(body.targetLanguage);
      if (!targetLanguage) {
        return invalidRequest({ fieldErrors: { targetLanguage: ['Must be a BCP-47 language tag, for example de or pt-BR'] } });
      }
      const email = deps.outbox.get(body.emailId);
      if (!email) return fail(404, undefined, 'Email not found');
      const source = { text: body.text ?? email.text, html: body.html ?? email.html };
      // Both translations are made before either is stored: a failing translator leaves the email as it was.
      const text = source.text === null ? null : await translator.translate(source.text, targetLanguage, 'text');
      const html = source.html === null ? null : await translator.translate(source.html, targetLanguage, 'html');
      if (text !== null) email.text = text;
      if (html !== null) email.html = html;
      return { status: 200, body: { success: true as const, data: { emailId: email.id, targetLanguage, text, html } } };
    },
  });
}
