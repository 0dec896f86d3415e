/**
 * Issues found in input documents: where each one points, and how its position is found. The
 * rules (rules/) report into an IssueSink; loading resolves every position at the end.
 */
import type { InputIssue, Severity } from '../shared/errors.js';
import { hasLocations, locate } from '../shared/source-yaml.js';
import type { SourcePos } from '../shared/source-yaml.js';

/** A document being validated: where messages point and how to find positions in it. */
export interface DocRef {
  readonly file: string;
  /** 0-based index of the document in its file. */
  readonly index: number;
  readonly root: unknown;
  readonly pos: SourcePos;
}

/** A JSON path into a document. */
export type Path = readonly (string | number)[];

/** A place in a document, for messages that mention a second location. */
export interface DocPlace {
  readonly doc: DocRef;
  readonly path: Path;
}

/** Placeholder in a message for the `file:line` of the issue's related place. */
export const RELATED = '{related}';

interface PendingIssue {
  readonly doc: DocRef;
  readonly path: Path;
  readonly at: 'value' | 'key';
  readonly related: DocPlace | undefined;
  readonly issue: Omit<InputIssue, 'line' | 'column'>;
}

/**
 * Collects issues. Positions are resolved at the end: documents parsed without positions (the
 * fast path) are parsed again with positions, only when they have something to report.
 */
export class IssueCollector {
  private readonly pending: PendingIssue[] = [];
  private errors = 0;

  add(
    doc: DocRef,
    severity: Severity,
    code: string,
    path: Path,
    message: string,
    hint?: string,
    at: 'value' | 'key' = 'value',
    related?: DocPlace,
  ): void {
    if (severity === 'error') this.errors++;
    this.pending.push({
      doc,
      path,
      at,
      related,
      issue: {
        severity,
        code,
        message,
        ...(hint === undefined ? {} : { hint }),
        file: doc.file,
        path: `/${path.join('/')}`,
      },
    });
  }

  /** Adds an issue whose position is already known (YAML syntax errors). */
  addPositioned(issue: InputIssue): void {
    if (issue.severity === 'error') this.errors++;
    const doc: DocRef = {
      file: issue.file,
      index: -1,
      root: undefined,
      pos: { line: issue.line, column: issue.column },
    };
    this.pending.push({ doc, path: [], at: 'value', related: undefined, issue });
  }

  get errorCount(): number {
    return this.errors;
  }

  /**
   * Resolves every position. `withPositions(doc)` returns the same document parsed with
   * positions (or undefined when there is no source to parse again).
   */
  resolve(withPositions: (doc: DocRef) => DocRef | undefined = () => undefined): InputIssue[] {
    const cache = new Map<DocRef, DocRef>();
    const located = (doc: DocRef): DocRef => {
      if (doc.root === undefined || (doc.root !== null && hasLocations(doc.root))) return doc;
      let found = cache.get(doc);
      if (!found) {
        found = withPositions(doc) ?? doc;
        cache.set(doc, found);
      }
      return found;
    };
    return this.pending.map(({ doc, path, at, related, issue }) => {
      const target = located(doc);
      const pos =
        target.root === undefined ? target.pos : locate(target.root, target.pos, path, at);
      let message = issue.message;
      if (related) {
        const other = located(related.doc);
        const line = locate(other.root, other.pos, related.path).line;
        message = message.replace(RELATED, `${other.file}:${String(line)}`);
      }
      return { ...issue, message, line: pos.line, column: pos.column };
    });
  }
}

/** Where the rules report; an IssueCollector, or an adapter in front of one. */
export type IssueSink = Pick<IssueCollector, 'add'>;

/** Facts gathered across all input documents, for uniqueness rules. */
export class FleetIndex {
  readonly clusterNames = new Map<string, DocPlace>();
  readonly macs = new Map<string, { place: DocPlace; owner: string }>();

  /** A place that does not keep its document alive; positions are found again when reported. */
  static place(doc: DocRef, path: Path): DocPlace {
    return { doc: { file: doc.file, index: doc.index, root: null, pos: doc.pos }, path };
  }
}
