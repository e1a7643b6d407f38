/**
 * What the generated types give a client beyond openapi-typescript's defaults: a type per component
 * by its own name, and enums whose values are split into published and designed branches kept as
 * unions of literals (not widened to `string`).
 */
import { describe, expect, expectTypeOf, test } from 'vitest';
import type { Contact, ContactStatus } from '../../generated/mail/client.gen.js';
import type { components, Project } from '../../generated/seo/client.gen.js';
import { generateApiTypes } from '../../scripts/steps/types.js';
import { asDocument } from '../helpers/fixture-document.js';

describe('generated types', () => {
  test('root aliases name each component schema: Project is components["schemas"]["Project"]', () => {
    expectTypeOf<Project>().toEqualTypeOf<components['schemas']['Project']>();
    expectTypeOf<Contact['status']>().toEqualTypeOf<ContactStatus>();
  });

  test('an enum split into published and designed branches stays a union of its values', () => {
    expectTypeOf<ContactStatus>().toEqualTypeOf<'subscribed' | 'complained' | 'unsubscribed' | 'bounced'>();
    // @ts-expect-error a value the contract does not list is refused by the compiler
    const unknown: ContactStatus = 'pending';
    expect(unknown).toBe('pending');
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
