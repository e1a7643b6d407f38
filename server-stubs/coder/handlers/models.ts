import { coderHandlers, type CoderDeps } from '../context.js';

/** The router's models, as the OpenAI list (`/models`, and `/v1/models` for the SDKs) and with metadata. */
export function modelHandlers({ router }: CoderDeps) {
  const list = () => ({
    status: 200 as const,
    body: { object: 'list' as const, data: router.models().map((m) => ({ id: m.id, object: 'model' as const, created: m.created, owned_by: m.owned_by })) },
  });
  return coderHandlers({
    listModels: list,
    listOpenAIModels: list,
    listModelCatalog: () => ({
      status: 200,
      body: {
        object: 'list',
        data: router.models().map((m) => ({
          id: m.id,
          object: 'model' as const,
          created: m.created,
          owned_by: m.owned_by,
          context_window: m.context_window,
          max_output_tokens: m.max_output_tokens,
          description: m.description,
        })),
      },
    }),
    getOpenAIModel: ({ params, fail }) => {
      const model = router.models().find((m) => m.id === params.model) ?? fail(404, undefined, `No model ${params.model}`);
      return { status: 200, body: { id: model.id, object: 'model', created: model.created, owned_by: model.owned_by } };
    },
  });
}
