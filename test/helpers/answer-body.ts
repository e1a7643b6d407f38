/**
 * An answer's parsed body as the behaviour tests read it after a raw request (malformed input,
 * hand-built headers: what a typed client cannot send): members reached without narrowing, since
 * each test holds the body to the contract (`contract.responseErrors`) and its values to
 * `toMatchObject`. Typed bodies are the generated clients'; this loose type stays in the tests.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type AnswerBody = Record<string, any>;
