/** Translates email content; the real service calls a translation provider behind this. */
export interface Translator {
  translate(content: string, targetLanguage: string, format: 'text' | 'html'): Promise<string>;
}

/** A BCP-47 tag in its canonical spelling (`DE-at` → `de-AT`), or undefined when it is not one. */
export function canonicalLanguage(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/**
 * The stub's default: no network, and the same input always gives the same output. Each run of
 * text is marked with the target language (`[de] Hello`); in HTML only the text between tags is,
 * so the markup survives untouched.
 */
export const markingTranslator: Translator = {
  async translate(content, targetLanguage, format) {
    const mark = (text: string) => text.replace(/^(\s*)/, `$1[${targetLanguage}] `);
    if (content.trim() === '') return content;
    if (format === 'text') return mark(content);
    // Split on tags (kept by the capture group): odd pieces are markup, even ones text.
    return content
      .split(/(<[^>]*>)/)
      .map((piece, i) => (i % 2 === 1 || piece.trim() === '' ? piece : mark(piece)))
      .join('');
  },
};
