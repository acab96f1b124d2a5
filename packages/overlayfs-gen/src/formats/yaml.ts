import { Document, Scalar, visit } from 'yaml';

/**
 * Render YAML with long file contents as literal blocks and permission strings quoted
 * ("0644"): Cluster API's docs insist on the quotes, and an unquoted 0644 is a number in YAML 1.1.
 */
export function renderYaml(value: unknown, header?: string): string {
  const doc = new Document(value);
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string') return;
      if (/^0[0-7]{3}$/.test(node.value)) node.type = Scalar.QUOTE_DOUBLE;
      else if (node.value.includes('\n')) node.type = Scalar.BLOCK_LITERAL;
    },
  });
  const body = doc.toString({ lineWidth: 0 });
  return header === undefined ? body : `${header}\n${body}`;
}
