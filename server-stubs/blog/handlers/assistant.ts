import { blogHandlers, type BlogDeps } from '../context.js';
import { admit } from '../metering.js';
import { iso } from '../store.js';

/** A canned but prompt-specific reply: the stub meters the assistant, it does not write. */
function reply(prompt: string): string {
  const topic = prompt.trim().replace(/\s+/g, ' ').slice(0, 120);
  return `Ideas for "${topic}": 1. Open with the problem your reader has. 2. Show one worked example. 3. End with a checklist they can reuse.`;
}

export function assistantHandlers({ store }: BlogDeps) {
  return blogHandlers({
    createAssistantPrompt: ({ principal, body, fail }) => {
      const account = store.account(principal.accountId);
      const meter = admit(store, account, 'ai_assistant_prompts', fail);
      const answer = { id: store.newId(), prompt: body.prompt, completion: reply(body.prompt), created_at: iso(store.now()) };
      return { status: 200, headers: meter.commit(), body: answer };
    },
  });
}
