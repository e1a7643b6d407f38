import { createHash } from 'node:crypto';
import type { HeaderLines } from 'mailparser';
import { simpleParser } from '../inbound/mail-parser.js';
import validator from 'validator';
import { messageIdDomain } from '../sending/relay.js';

/** What the feedback-loop webhook needs from an ARF report (RFC 5965). */
export interface FeedbackReport {
  /** `Feedback-Type` of the machine-readable part: abuse, fraud, virus, other, not-spam, ... */
  feedbackType: string;
  /** the complaining recipient (`Original-Rcpt-To`, else `Removal-Recipient`); null when the report names none */
  recipient: string | null;
  /** the stub's id of the reported message, when the returned headers carry one */
  messageReference: string | null;
  /** what makes a repeat of this report recognizable (see `reportKey`) */
  key: string;
}

export class UnparseableReport extends Error {}

const parserOptions = { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true } as const;

/** Parses a raw report: a `multipart/report; report-type=feedback-report` with a `message/feedback-report` part. */
export async function parseFeedbackReport(raw: string): Promise<FeedbackReport> {
  const mail = await simpleParser(raw, parserOptions).catch((error: Error) => {
    throw new UnparseableReport(error.message);
  });
  const type = mail.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  if (type?.value !== 'multipart/report' || type.params?.['report-type']?.toLowerCase() !== 'feedback-report') {
    throw new UnparseableReport('not a multipart/report with report-type=feedback-report');
  }
  const part = mail.attachments.find((a) => a.contentType === 'message/feedback-report');
  if (!part) throw new UnparseableReport('no message/feedback-report part');
  const fields = await reportFields(part.content);
  const feedbackType = fields.get('feedback-type')?.[0]?.toLowerCase();
  if (!feedbackType) throw new UnparseableReport('the report has no Feedback-Type');
  return {
    feedbackType,
    recipient: firstAddress(fields.get('original-rcpt-to')) ?? firstAddress(fields.get('removal-recipient')),
    messageReference: messageReferenceIn(raw),
    key: reportKey(raw, mail.messageId),
  };
}

/** The machine-readable part is a header block (RFC 5965 §3.1): read with the same parser, field names lower-cased. */
async function reportFields(content: Buffer): Promise<Map<string, string[]>> {
  const block = await simpleParser(Buffer.concat([content, Buffer.from('\r\n\r\n')]), parserOptions);
  const fields = new Map<string, string[]>();
  for (const { key, line } of block.headerLines as HeaderLines) {
    const value = line.slice(line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim();
    fields.set(key, [...(fields.get(key) ?? []), value]);
  }
  return fields;
}

function firstAddress(values: string[] | undefined): string | null {
  for (const value of values ?? []) {
    const address = value.replace(/^.*</, '').replace(/>.*$/, '').trim().toLowerCase();
    if (validator.isEmail(address)) return address;
  }
  return null;
}

const escaped = messageIdDomain.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const stubHeader = /^X-Mail-Message-Id:[ \t]*<?([^\s<>]+)>?/im;
const stubMessageId = new RegExp(`^Message-ID:[ \\t]*<([^\\s<>@]+)@${escaped}>`, 'im');

/**
 * The returned original (a `message/rfc822` or `text/rfc822-headers` part) names the stub's message
 * by `X-Mail-Message-Id` or by a `Message-ID` at the stub's own domain; mailparser folds an inline
 * original into the text, so its headers are found in the raw report.
 */
function messageReferenceIn(raw: string): string | null {
  return stubHeader.exec(raw)?.[1] ?? stubMessageId.exec(raw)?.[1] ?? null;
}

/**
 * A repeat is the same report delivered again: keyed by the report's own `Message-ID`, or, for a
 * report without one (as in RFC 5965's examples), by its content with line endings normalized, so
 * the same report sent as `message/rfc822`, plain text or JSON is one report.
 */
function reportKey(raw: string, messageId: string | undefined): string {
  if (messageId) return `fbl:id:${messageId.trim().toLowerCase()}`;
  return `fbl:sha256:${createHash('sha256').update(raw.replace(/\r\n/g, '\n').trim()).digest('hex')}`;
}
