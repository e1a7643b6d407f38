/**
 * The approved WhatsApp templates of every account (designed, provisional: the document names
 * approved templates but not how they are approved or listed). The stub seeds one set for every
 * user, in English and Spanish; `parameters` is how many `{type: 'text'}` values a send must carry.
 */
export interface ApprovedTemplate {
  name: string;
  languages: readonly string[];
  parameters: number;
}

export const approvedWhatsAppTemplates: readonly ApprovedTemplate[] = [
  { name: 'welcome', languages: ['en', 'es'], parameters: 1 },
  { name: 'order_shipped', languages: ['en', 'es'], parameters: 1 },
  { name: 'order_update', languages: ['en', 'es'], parameters: 2 },
];

/** The approved template of that name in that language (BCP-47 tags compare case-insensitively). */
export function approvedTemplate(name: string, language: string): ApprovedTemplate | undefined {
  const tag = language.toLowerCase();
  return approvedWhatsAppTemplates.find((t) => t.name === name && t.languages.some((l) => l.toLowerCase() === tag));
}
