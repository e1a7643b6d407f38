import { mailHandlers, type MailDeps } from '../../context.js';
import { requireFeature } from '../../identity/plans.js';
import { localSubjectLines, type SubjectLineGenerator } from '../subject-lines.js';

/** AI subject lines (Pro plan), from whatever generator sits behind the adapter; nothing is stored. */
export function subjectLineHandlers({ identity }: MailDeps, generator: SubjectLineGenerator = localSubjectLines) {
  return mailHandlers({
    generateSubjectLines: async ({ principal, body }) => {
      requireFeature(identity.user(principal.userId)?.plan ?? 'free', 'ai_subject_lines');
      const brief = body.content !== undefined ? { source: 'content' as const, text: body.content } : { source: 'topic' as const, text: body.topic };
      const suggestions = await generator.suggest({ ...brief, tone: body.tone, count: body.count ?? 5 });
      return { status: 200, body: { success: true, data: { suggestions } } };
    },
  });
}
