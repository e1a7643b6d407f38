/**
 * What the generated types give a client beyond openapi-typescript's defaults: a type per component
 * by its own name, and enums whose values are split into published and designed branches kept as
 * unions of literals (not widened to `string`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, expectTypeOf, test } from 'vitest';
import type { Contact, ContactStatus } from '../../generated/mail/client.gen.js';
import type { components, Project } from '../../generated/seo/client.gen.js';
import { generateApiTypes } from '../../scripts/steps/types.js';
import { asDocument } from '../helpers/fixture-document.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';

describe('generated types', () => {
  test('root aliases name each component schema: Project is components["schemas"]["Project"]', () => {
    expectTypeOf<Project>().toEqualTypeOf<components['schemas']['Project']>();
    expectTypeOf<Contact['status']>().toEqualTypeOf<ContactStatus>();
  });

  test('an enum split into published and designed branches stays a union of its values', () => {
    expectTypeOf<ContactStatus>().toEqualTypeOf<'subscribed' | 'complained' | 'unsubscribed' | 'bounced'>();
    // Checked by the typecheck, not at run time: a value the contract does not list is refused.
    // @ts-expect-error 'pending' is not a ContactStatus
    const refused: ContactStatus = 'pending';
    void refused;
  });

  test('the committed mail types hold ContactStatus as the union of the values the contract lists', () => {
    const source = readFileSync(path.join(defaultRoot, 'generated', 'mail', 'types.gen.ts'), 'utf8');
    expect(source).toContain('ContactStatus: "subscribed" | "complained" | "unsubscribed" | "bounced";');
  });

  test('the generator writes the union, with null where the type allows it, and leaves other anyOf alone', async () => {
    const document = asDocument({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {},
      components: {
        schemas: {
          Status: { type: 'string', anyOf: [{ enum: ['a', 'b'] }, { enum: ['c'], 'x-provisional': 'designed' }] },
          MaybeStatus: { type: ['string', 'null'], oneOf: [{ enum: ['a'] }, { const: 'z' }] },
          Mixed: { anyOf: [{ type: 'string' }, { enum: [1, 2] }] },
        },
      },
    });
    const source = await generateApiTypes('t', document);
    expect(source).toContain('Status: "a" | "b" | "c";');
    expect(source).toContain('MaybeStatus: "a" | "z" | null;');
    expect(source).toMatch(/Mixed: string \| \(1 \| 2\);/);
    expect(source).toContain("export type Status = components['schemas']['Status'];");
  });
});
