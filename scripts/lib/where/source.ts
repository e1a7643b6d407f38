import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, type Document, type Node } from 'yaml';

/** A place in the project a reader can open: a path relative to the project root and a 1-based line. */
export interface SourceLocation {
  file: string;
  line: number;
}

interface ParsedSource {
  document: Document;
  lines: LineCounter;
}

/**
 * The contract's source files (YAML or JSON) parsed once each with their line positions, so an
 * answer names the line a reader edits rather than a position in the bundle.
 */
export class SourceFiles {
  private readonly parsed = new Map<string, ParsedSource>();

  constructor(readonly root: string) {}

  /** The node at `pointer` (keys from the document's top) in `file` (absolute), with the line of its key. */
  find(file: string, pointer: string[]): { node: Node; line: number } | undefined {
    const { document, lines } = this.parse(file);
    let node: unknown = document.contents;
    let line = 1;
    for (const key of pointer) {
      if (!isMap(node)) return undefined;
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
      if (!pair || !isScalar(pair.key)) return undefined;
      line = lines.linePos(pair.key.range?.[0] ?? 0).line;
      node = pair.value;
    }
    return node ? { node: node as Node, line } : undefined;
  }

  /** Where a `$ref` of a node in `fromFile` leads: the file (absolute) and the pointer inside it. */
  static resolveRef(fromFile: string, ref: string): { file: string; pointer: string[] } {
    const [target = '', fragment = ''] = ref.split('#');
    const file = target ? path.resolve(path.dirname(fromFile), target) : fromFile;
    const pointer = fragment
      .split('/')
      .filter(Boolean)
      .map((part) => decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~'));
    return { file, pointer };
  }

  /** `file` (absolute) relative to the project root, with forward slashes, as the answers print it. */
  relative(file: string): string {
    return path.relative(this.root, file).split(path.sep).join('/');
  }

  private parse(file: string): ParsedSource {
    let parsed = this.parsed.get(file);
    if (!parsed) {
      const lines = new LineCounter();
      parsed = { document: parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines, uniqueKeys: false }), lines };
      this.parsed.set(file, parsed);
    }
    return parsed;
  }
}
