/**
 * Fields a ClusterInstance cannot carry over, reported like validation issues:
 * `FILE:LINE:COLUMN: warning CONVERT_<CODE>: <field> cannot be carried over: <reason>` with the
 * replacement as the hint.
 */
import type { InputIssue } from '../shared/errors.js';
import type { Limits } from '../shared/limits.js';
import { locate, parseYamlFile } from '../shared/source-yaml.js';
import type { SourceDocument } from '../shared/source-yaml.js';
import type { ConversionWarning, PositionedWarning } from '../siteconfig/cluster-instance/index.js';
import type { SourceFile } from '../siteconfig/index.js';

/** A conversion warning of a SiteConfig document, not yet positioned. */
export interface DocumentWarning {
  readonly file: string;
  /** 0-based index of the SiteConfig document in its file. */
  readonly documentIndex: number;
  readonly warning: ConversionWarning;
}

/** A positioned conversion warning as an issue. */
export function conversionIssue(warning: PositionedWarning): InputIssue {
  return {
    severity: 'warning',
    code: `CONVERT_${warning.code}`,
    message: `${warning.field} cannot be carried over: ${warning.reason}`,
    hint: warning.replacement,
    file: warning.file,
    line: warning.line,
    column: warning.column,
    path: `/${warning.path.join('/')}`,
  };
}

/**
 * Positions warnings at the field's key. Files are parsed again with positions, only when
 * there is a warning in them (rendering parses without positions).
 */
export function locateWarnings(
  files: readonly SourceFile[],
  warnings: readonly DocumentWarning[],
  limits?: Limits,
): InputIssue[] {
  const texts = new Map(files.map((f) => [f.path, f.text]));
  const parsed = new Map<string, SourceDocument[]>();
  return warnings.map(({ file, documentIndex, warning }) => {
    let documents = parsed.get(file);
    if (!documents) {
      documents = parseYamlFile(file, texts.get(file) ?? '', limits ? { limits } : {}).documents;
      parsed.set(file, documents);
    }
    const doc = documents[documentIndex];
    const pos = doc ? locate(doc.value, doc.pos, warning.path, 'key') : { line: 1, column: 1 };
    return conversionIssue({ ...warning, file, line: pos.line, column: pos.column });
  });
}
