/**
 * What hostile input costs next to ordinary input, in one run (the tests prove the bounds by which
 * bound answered, never by a watch): a mail template whose loop is refused by the allocation bound,
 * against an ordinary render; a template only the time bound can end, against that bound.
 */
import { renderLimits, renderParts, RenderFailed, type TemplateParts } from '../../server-stubs/mail/content/render.js';
import { median } from '../lib/processes.js';
import type { Suite, Target } from '../suite.js';

const ordinary: TemplateParts = {
  subject: 'Welcome, {{ first_name }}',
  html: '<p>Hi {{first_name}}, thanks for joining {{ company }}.</p>{% for item in items %}<li>{{ item }}</li>{% endfor %}',
  text: 'Hi {{first_name}}, thanks for joining {{company}}.',
};
const variables = { first_name: 'Ada', company: 'Northwind', items: ['a', 'b', 'c'] };
const hugeLoop: TemplateParts = { subject: 'x', html: '{% for i in (1..100000000) %}x{% endfor %}', text: null };
const timeBound: TemplateParts = { subject: 'x', html: '{% assign r = (1..100000) %}{% for i in r %}{% for j in r %}x{% endfor %}{% endfor %}', text: null };

/** Wall time of one render, ms; a refusal by a render limit is the expected end of a hostile one. */
async function timeRender(parts: TemplateParts, values: Record<string, unknown>, refused: boolean): Promise<number> {
  const started = performance.now();
  try {
    await renderParts(parts, values);
    if (refused) throw new Error('a hostile template rendered: the bench no longer measures a refusal');
  } catch (error) {
    if (!refused || !(error instanceof RenderFailed)) throw error;
  }
  return performance.now() - started;
}

async function samples(rounds: number, measure: () => Promise<number>): Promise<number[]> {
  const taken: number[] = [];
  for (let i = 0; i < rounds; i++) taken.push(await measure());
  return taken;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export const suite: Suite = {
  description: 'hostile input against ordinary input in one run: a mail template refused by its allocation bound, one cut by its time bound',
  async run() {
    const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
    // Warm: the first render of each shape pays for the engine's set-up.
    await timeRender(ordinary, variables, false);
    await timeRender(hugeLoop, {}, true);
    const plain = median(await samples(rounds * 20, () => timeRender(ordinary, variables, false)));
    const refusal = median(await samples(rounds * 20, () => timeRender(hugeLoop, {}, true)));
    const cut = median(await samples(rounds, () => timeRender(timeBound, {}, true)));
    const refusalRatio = round2(refusal / plain);
    const cutRatio = round2(cut / renderLimits.renderMs);
    const targets: Target[] = [
      { name: 'mail template: a 10⁸-step loop refused / an ordinary render, time ratio (≤ 2)', measured: refusalRatio, met: refusalRatio <= 2 },
      { name: 'mail template: a render only the time bound ends / that bound, time ratio (≤ 1.5)', measured: cutRatio, met: cutRatio <= 1.5 },
    ];
    const markdown = [
      '## Hostile input, bounded (`npm run bench -- limits`)',
      '',
      'Medians in one run, so the ratios hold on a loaded machine too: the tests check which bound answered, this section what it cost.',
      '',
      '| render | median, ms | ratio |',
      '|---|---:|---:|',
      `| ordinary template (3 parts, a loop of 3) | ${round2(plain)} | 1 |`,
      `| \`{% for i in (1..100000000) %}\`: refused by the allocation bound | ${round2(refusal)} | ${refusalRatio} |`,
      `| nested loops over one range of 10⁵: cut by the ${renderLimits.renderMs} ms time bound | ${round2(cut)} | ${cutRatio} of the bound |`,
    ].join('\n');
    return { markdown, targets };
  },
};
