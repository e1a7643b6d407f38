import { Liquid, Tag, type TagToken, type TopLevelToken } from 'liquidjs';

/**
 * Template rendering with liquidjs. A template is text from a caller, so the engine is fenced:
 * it reads no files (partials and layouts resolve in an empty in-memory map, and the tags that
 * would load one are refused when parsed) and every parse and render is bounded in size, time and
 * allocations, so a template can neither reach the disk nor run forever.
 */

/** Designed bounds (the document publishes none); the contract names them on render's 422. */
export const renderLimits = {
  /** characters parsed per template part */
  parseChars: 500_000,
  /** wall time per rendered part */
  renderMs: 1_000,
  /** liquidjs allocation units (array and string building) per render */
  memory: 10_000_000,
  /** characters of one rendered part */
  outputChars: 1_000_000,
} as const;

export interface TemplateParts {
  subject: string;
  html: string;
  text: string | null;
}

export type PartName = keyof TemplateParts;

/** A part does not parse, or uses what the fence refuses: a field error of the request. */
export class TemplateSyntaxError extends Error {
  constructor(
    readonly field: PartName,
    message: string,
  ) {
    super(message);
  }
}

/** Placeholders without a value: the names, in the order the template uses them. */
export class MissingVariables extends Error {
  constructor(readonly names: string[]) {
    super(`Missing value for ${names.join(', ')}`);
  }
}

/** The render went past a bound of `renderLimits`, or a filter failed on a value (`divided_by: 0`). */
export class RenderFailed extends Error {}

const fileTags = ['include', 'render', 'layout'] as const;

/** Stands in for the tags that load other templates: refused when the template is parsed. */
class FileTagRefused extends Tag {
  constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: Liquid) {
    super(token, remainTokens, liquid);
    throw new Error(`The ${token.name} tag is not available: templates cannot load other templates or files`);
  }
  *render(): Generator<unknown, void, unknown> {}
}

function engine(escapeOutput: boolean): Liquid {
  const liquid = new Liquid({
    templates: {},
    relativeReference: false,
    strictVariables: true,
    strictFilters: true,
    ...(escapeOutput && { outputEscape: 'escape' as const }),
    parseLimit: renderLimits.parseChars,
    renderLimit: renderLimits.renderMs,
    memoryLimit: renderLimits.memory,
  });
  for (const name of fileTags) liquid.registerTag(name, FileTagRefused);
  return liquid;
}

// Values go into HTML escaped (a `<script>` in a variable stays text); subject and text are not
// HTML, so they take values as they are. A template author opts out per output with `| raw`.
const engines: Record<PartName, Liquid> = { subject: engine(false), html: engine(true), text: engine(false) };

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).replace(/^.*?: (The \w+ tag is not available)/, '$1');

function parsed(field: PartName, source: string) {
  try {
    return engines[field].parse(source);
  } catch (error) {
    throw new TemplateSyntaxError(field, messageOf(error));
  }
}

const partNames: readonly PartName[] = ['subject', 'html', 'text'];
const present = (parts: TemplateParts) => partNames.filter((field) => parts[field] !== null);

/**
 * The names of the values a template needs: the root names of its global variables (`user` for
 * `{{ user.name }}`; loop variables and `assign`ed names are the template's own), first use first.
 * Throws `TemplateSyntaxError` for a part that does not parse.
 */
export function placeholders(parts: TemplateParts): string[] {
  const names = new Set<string>();
  for (const field of present(parts)) {
    for (const name of engines[field].globalVariablesSync(parsed(field, parts[field]!), { partials: false })) names.add(name);
  }
  return [...names];
}

/** Renders every part with `variables`; refuses a missing value before rendering anything. */
export async function renderParts(parts: TemplateParts, variables: Record<string, unknown>): Promise<TemplateParts> {
  const missing = placeholders(parts).filter((name) => !Object.hasOwn(variables, name));
  if (missing.length > 0) throw new MissingVariables(missing);
  const rendered: TemplateParts = { subject: '', html: '', text: null };
  for (const field of present(parts)) rendered[field] = await renderPart(field, parts[field]!, variables);
  return rendered;
}

async function renderPart(field: PartName, source: string, variables: Record<string, unknown>): Promise<string> {
  const template = parsed(field, source);
  let output: string;
  try {
    output = await engines[field].render(template, variables);
  } catch (error) {
    const message = messageOf(error);
    if (/limit exceeded/.test(message)) throw new RenderFailed(`The ${field} exceeds the render limits (${message.replace(/, line:.*$/, '')})`);
    const undefinedName = /undefined variable: ([^,]+)/.exec(message)?.[1];
    // A scalar value used as an object (`user.name` with `user: "Ada"`) leaves a path without a value.
    if (undefinedName) throw new MissingVariables([undefinedName]);
    throw new RenderFailed(`The ${field} could not be rendered: ${message}`);
  }
  if (output.length > renderLimits.outputChars) throw new RenderFailed(`The rendered ${field} exceeds ${renderLimits.outputChars} characters`);
  return output;
}
