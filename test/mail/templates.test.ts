/**
 * Templates through HTTP with the generated mail client (issue 14, "templates"): create and list
 * (per user, newest first, paged), placeholders found by the template engine, and render of a
 * stored or inline template with liquidjs: every missing value named in one 422, values escaped in
 * HTML only, no file access from a template, and bounded work (a huge loop is refused, not hung).
 */
import { describe, expect, test } from 'vitest';
import { answered, mailForEachTest } from './identity-support.js';

const mail = mailForEachTest();

const max = () => mail.key('msk_test_max');
const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';

type NewTemplate = { name: string; subject: string; html: string; text?: string };

async function create(body: NewTemplate, client = max()) {
  return answered(await client.POST('/v1/templates', { body }), 201, '/v1/templates', 'post').data;
}

async function render(body: Record<string, unknown>, status = 200, client = max()) {
  return answered(await client.POST('/v1/templates/render', { body: body as never }), status, '/v1/templates/render', 'post');
}

const welcome: NewTemplate = {
  name: 'Welcome',
  subject: 'Welcome, {{ first_name }}',
  html: '<p>Hi {{first_name}}, thanks for joining {{ company }}.</p>',
  text: 'Hi {{first_name}}, thanks for joining {{company}}.',
};

describe('create', () => {
  test('lists the placeholder names, first use first; text defaults to null; times from the stub clock', async () => {
    const t = await create(welcome);
    expect(t).toMatchObject({ name: 'Welcome', subject: welcome.subject, html: welcome.html, text: welcome.text, variables: ['first_name', 'company'] });
    expect(t.created_at).toBe(new Date(mail.clock.now()).toISOString());
    expect(t.updated_at).toBe(t.created_at);
    const bare = await create({ name: 'Receipt', subject: 'Your receipt', html: '<p>Thanks.</p>' });
    expect(bare).toMatchObject({ text: null, variables: [] });
  });

  test("a loop variable and an assigned name are the template's own; an object's root is the placeholder", async () => {
    const t = await create({ name: 'Order', subject: 'Order {{ order.number }}', html: '{% assign greeting = "Hi" %}{{ greeting }} {% for item in items %}{{ item }}{% endfor %}' });
    expect(t.variables).toEqual(['order', 'items']);
  });

  test('a template that does not parse is a field error of its part (400), nothing stored', async () => {
    const refused = answered(await max().POST('/v1/templates', { body: { name: 'Broken', subject: 'ok', html: '<p>{{ name </p>' } }), 400, '/v1/templates', 'post');
    expect(refused.error).toBe('Validation failed');
    expect(refused.details.fieldErrors).toEqual({ html: ['output "{{ name </p>" not closed, line:1, col:4'] });
    const unknownFilter = answered(await max().POST('/v1/templates', { body: { name: 'Filter', subject: '{{ x | shout }}', html: 'ok' } }), 400, '/v1/templates', 'post');
    expect(unknownFilter.details.fieldErrors.subject[0]).toMatch(/undefined filter: shout/);
    const listed = answered(await max().GET('/v1/templates'), 200, '/v1/templates', 'get');
    expect(listed.data).toEqual([]);
  });

  test('include, render and layout are refused when the template is saved: a template reads no files', async () => {
    for (const tag of ['{% include "/etc/passwd" %}', '{% render "../../package.json" %}', '{% layout "base" %}x']) {
      const refused = answered(await max().POST('/v1/templates', { body: { name: 'Files', subject: 'x', html: tag } }), 400, '/v1/templates', 'post');
      expect(refused.details.fieldErrors.html[0]).toMatch(/tag is not available: templates cannot load other templates or files/);
    }
  });

  test('a placeholder name outside letters, digits and underscores is refused (400)', async () => {
    const refused = answered(await max().POST('/v1/templates', { body: { name: 'Dash', subject: 'x', html: 'Hi {{ first-name }}' } }), 400, '/v1/templates', 'post');
    expect(refused.details.formErrors).toEqual(['Placeholder names are letters, digits and underscores: first-name']);
  });

  test('missing required fields and wrong types are refused by the contract (400)', async () => {
    answered(await max().POST('/v1/templates', { body: { name: 'No html', subject: 'x' } as never }), 400, '/v1/templates', 'post');
    answered(await max().POST('/v1/templates', { body: { name: 42, subject: 'x', html: 'y' } as never }), 400, '/v1/templates', 'post');
    answered(await max().POST('/v1/templates', { body: { name: '', subject: 'x', html: 'y' } }), 400, '/v1/templates', 'post');
  });

  test('a token without the write scope: 403', async () => {
    answered(await mail.key('msk_test_oauth_send').POST('/v1/templates', { body: welcome }), 403, '/v1/templates', 'post');
  });
});

describe('list', () => {
  test("newest first, paged with {page, limit, total, totalPages}; only the caller's templates", async () => {
    for (const n of [1, 2, 3]) {
      mail.clock.advance(1000);
      await create({ ...welcome, name: `T${n}` });
    }
    await create({ ...welcome, name: 'Pro only' }, mail.key('msk_test_pro'));
    const first = answered(await max().GET('/v1/templates', { params: { query: { limit: 2 } } }), 200, '/v1/templates', 'get');
    expect(first.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(first.data.map((t: { name: string }) => t.name)).toEqual(['T3', 'T2']);
    const second = answered(await max().GET('/v1/templates', { params: { query: { limit: 2, page: 2 } } }), 200, '/v1/templates', 'get');
    expect(second.data.map((t: { name: string }) => t.name)).toEqual(['T1']);
  });

  test('a page size over 100 is refused (400); a token without the read scope 403', async () => {
    answered(await max().GET('/v1/templates', { params: { query: { limit: 101 } } }), 400, '/v1/templates', 'get');
    answered(await mail.key('msk_test_oauth_send').GET('/v1/templates'), 403, '/v1/templates', 'get');
  });
});

describe('render', () => {
  test('a stored template with its variables; extra values are ignored', async () => {
    const t = await create(welcome);
    const rendered = await render({ template_id: t.id, variables: { first_name: 'Ada', company: 'Example Ltd', unused: 1 } });
    expect(rendered).toEqual({
      success: true,
      data: { subject: 'Welcome, Ada', html: '<p>Hi Ada, thanks for joining Example Ltd.</p>', text: 'Hi Ada, thanks for joining Example Ltd.' },
    });
  });

  test('an inline template without text renders text null; numbers and booleans are values too', async () => {
    const rendered = await render({ subject: 'Order {{ n }}', html: '<p>{% if paid %}Paid{% endif %} {{ n | plus: 1 }}</p>', variables: { n: 41, paid: true } });
    expect(rendered.data).toEqual({ subject: 'Order 41', html: '<p>Paid 42</p>', text: null });
  });

  test('every missing value is named in one 422 (Parameter mismatch), across subject, html and text', async () => {
    const t = await create({ name: 'Three', subject: 'Hi {{ first_name }}', html: '{{ company }} {{ first_name }}', text: '{{ city }}' });
    const refused = await render({ template_id: t.id, variables: { company: 'X' } }, 422);
    expect(refused).toEqual({ success: false, error: 'Parameter mismatch', details: { fieldErrors: { variables: ['Missing value for first_name', 'Missing value for city'] } } });
    const none = await render({ subject: '{{ a }}', html: '{{ b }}' }, 422);
    expect(none.details.fieldErrors.variables).toEqual(['Missing value for a', 'Missing value for b']);
  });

  test('a scalar used as an object leaves the path without a value: 422 naming it', async () => {
    const refused = await render({ subject: 'x', html: '{{ user.name }}', variables: { user: 'Ada' } }, 422);
    expect(refused.details.fieldErrors.variables).toEqual(['Missing value for user.name']);
  });

  test('HTML escapes variable values; subject and text take them raw; `| raw` opts out in HTML', async () => {
    const evil = '<script>alert("x")</script>';
    const rendered = await render({ subject: 'S {{ v }}', html: '<p>{{ v }}</p><div>{{ v | raw }}</div>', text: 'T {{ v }}', variables: { v: evil } });
    expect(rendered.data).toEqual({
      subject: `S ${evil}`,
      html: `<p>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</p><div>${evil}</div>`,
      text: `T ${evil}`,
    });
  });

  test('an unknown template id, or one of another user, is 404', async () => {
    const t = await create(welcome, mail.key('msk_test_pro'));
    expect(await render({ template_id: unknownId }, 404)).toEqual({ success: false, error: 'Template not found' });
    await render({ template_id: t.id, variables: { first_name: 'a', company: 'b' } }, 404);
  });

  test('an inline template that does not parse, or reaches for a file, is a field error (400)', async () => {
    const broken = await render({ subject: '{% if x %}', html: 'ok', variables: { x: 1 } }, 400);
    expect(broken.details.fieldErrors).toEqual({ subject: ['tag {% if x %} not closed, line:1, col:1'] });
    const include = await render({ subject: 'x', html: '{% include "/etc/passwd" %}' }, 400);
    expect(include.details.fieldErrors.html[0]).toMatch(/include tag is not available/);
  });

  // Which bound ended a render is in the answer, so no watch is needed: the allocation bound is
  // charged when the range is built, before one iteration runs.
  test('a huge loop is refused with 422 before it runs (allocation bound), not hung', async () => {
    const refused = await render({ subject: 'x', html: '{% for i in (1..100000000) %}x{% endfor %}' }, 422);
    expect(refused.error).toBe('The html exceeds the render limits (memory alloc limit exceeded)');
  });

  // The range is built once, so the allocation bound cannot end this render however fast the
  // machine is: only the time bound can, and the answer names it.
  test('nested loops that allocate little are cut by the time bound (422), not hung', async () => {
    const refused = await render({ subject: 'x', html: '{% assign r = (1..100000) %}{% for i in r %}{% for j in r %}x{% endfor %}{% endfor %}' }, 422);
    expect(refused.error).toBe('The html exceeds the render limits (template render limit exceeded)');
  });

  test('a filter failing on a value is a 422 naming the part', async () => {
    const refused = await render({ subject: 'x', html: '{{ n | url_decode }}', variables: { n: '%E0%A4%A' } }, 422);
    expect(refused.error).toBe('The html could not be rendered: URI malformed, line:1, col:1');
  });

  test('a body with both a template id and an inline template, or neither, is refused by the contract (400)', async () => {
    await render({ template_id: unknownId, subject: 'x', html: 'y' }, 400);
    await render({ variables: {} }, 400);
    await render({ subject: 'x', html: 'y', variables: { nested: { a: 1 } } }, 400);
  });

  test('a token without the read scope: 403', async () => {
    await render({ subject: 'x', html: 'y' }, 403, mail.key('msk_test_oauth_send'));
  });
});
