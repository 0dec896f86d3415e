/**
 * How a text survives the SiteConfig operator's default templates, which write some fields
 * inside double quotes (`sshPublicKey: "{{ .Spec.SSHPublicKey }}"`) and then read the result as
 * YAML. In a double-quoted YAML scalar a single line break folds into a space and n empty lines
 * into n line breaks; whitespace around a break is dropped. So two keys on two lines reach the
 * AgentClusterInstall and the InfraEnv as one line, and hosts authorize only the first key.
 * Checked against gopkg.in/yaml.v3, the operator's reader. Pure.
 */

const LINE_BREAK = /\r\n|\r|\n/;

/** True when the text holds a line break, i.e. when the templates change it. */
export function hasLineBreak(text: string): boolean {
  return LINE_BREAK.test(text);
}

/** The text as the operator's templates render it between double quotes. */
export function renderedInDoubleQuotes(text: string): string {
  const lines = text.split(LINE_BREAK);
  if (lines.length === 1) return text;
  let out = lines[0]!.replace(/[ \t]+$/, '');
  let emptyLines = 0;
  for (let i = 1; i < lines.length; i++) {
    const last = i === lines.length - 1;
    const trimmed = lines[i]!.replace(/^[ \t]+/, '');
    // The last line ends at the closing quote, so its trailing whitespace is content.
    const content = last ? trimmed : trimmed.replace(/[ \t]+$/, '');
    if (content === '' && !last) {
      emptyLines++;
      continue;
    }
    out += (emptyLines > 0 ? '\n'.repeat(emptyLines) : ' ') + content;
    emptyLines = 0;
  }
  return out;
}

/**
 * The text to write into a ClusterInstance so that the templates render `text` itself: every
 * run of line breaks gets one more, which the folding takes away again. Whitespace at the ends
 * of lines is still lost (it never matters in an authorized_keys list).
 */
export function survivingDoubleQuotes(text: string): string {
  return text.replace(/(?:\r\n|\r|\n)+/g, (run) => '\n'.repeat(run.split(LINE_BREAK).length));
}
