import type { ParsedMail, SimpleParserOptions } from 'mailparser';

/**
 * mailparser's `simpleParser`, loaded on the first message: it and its dependencies are slow to
 * load, and only inbound mail and feedback reports parse messages.
 */
export async function simpleParser(raw: string | Buffer, options: SimpleParserOptions): Promise<ParsedMail> {
  const { simpleParser: parse } = await import('mailparser');
  return parse(raw, options);
}
