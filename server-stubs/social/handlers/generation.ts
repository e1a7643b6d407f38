import { createHash } from 'node:crypto';
import { socialHandlers, type SocialDeps } from '../context.js';
import { fitTo } from '../generator.js';
import { characterLimits } from '../store.js';

/** The same request from the same workspace names the same variants, so generating again changes nothing. */
function variantId(parts: Array<string | number>): string {
  return `var_${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 16)}`;
}

export function generationHandlers({ store, generator }: SocialDeps) {
  return socialHandlers({
    generateVariants: async ({ principal, body, fail }) => {
      if ((body.topic === undefined) === (body.prompt === undefined)) fail(400, undefined, 'Give exactly one of topic or prompt');
      const subject = (body.topic ?? body.prompt)!.trim().replace(/\s+/gu, ' ');
      const variants = [];
      for (const platform of body.platforms) {
        const maxLength = characterLimits[platform];
        const texts = await generator.write({ subject, platform, tone: body.tone, count: body.count, maxLength });
        for (let index = 0; index < body.count; index += 1) {
          // A generator that says too little or too much must not break the contract: cut, or fall back to the subject.
          const contentText = fitTo(texts[index]?.trim() || subject, maxLength);
          const id = variantId([principal.workspaceId, body.topic ?? '', body.prompt ?? '', platform, body.tone, index]);
          const variant = { variantId: id, platform, contentText, tone: body.tone };
          store.keepVariant({ ...variant, workspaceId: principal.workspaceId });
          variants.push(variant);
        }
      }
      return { status: 200, body: { variants } };
    },
  });
}
