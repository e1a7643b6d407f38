import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** Contract extensions: annotations for readers and tools, never validation keywords. */
export const annotationKeywords = ['x-provisional', 'x-rate-limit', 'x-stream-frames'];

/** The one ajv set-up of the toolkit: JSON Schema 2020-12, formats, contract annotations known. */
export function createAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: 'log', ...options });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  for (const keyword of annotationKeywords) ajv.addKeyword({ keyword, schemaType: ['string', 'object', 'boolean'] });
  return ajv;
}
