/** Builders of small DMN 1.3 documents for the unit tests. */

const NS = 'https://www.omg.org/spec/DMN/20191111/MODEL/';

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A decision table described by its columns and rows (unary tests per input, expressions per output). */
export interface TableSpec {
  hitPolicy?: string;
  aggregation?: string;
  inputs: string[];
  inputValues?: (string | null)[];
  outputs: { name: string; values?: string; default?: string }[];
  rules: [string[], string[]][];
}

/** The `<decisionTable>` element of a table spec. */
export function tableXml(spec: TableSpec, id = 'table'): string {
  const attrs = [
    spec.hitPolicy ? ` hitPolicy="${spec.hitPolicy}"` : '',
    spec.aggregation ? ` aggregation="${spec.aggregation}"` : '',
  ].join('');
  const inputs = spec.inputs
    .map((text, i) => {
      const values = spec.inputValues?.[i];
      return `<input id="${id}_in${i}"><inputExpression><text>${escape(text)}</text></inputExpression>${
        values ? `<inputValues><text>${escape(values)}</text></inputValues>` : ''
      }</input>`;
    })
    .join('');
  const outputs = spec.outputs
    .map(
      (o, i) =>
        `<output id="${id}_out${i}" name="${o.name}">${
          o.values ? `<outputValues><text>${escape(o.values)}</text></outputValues>` : ''
        }${o.default ? `<defaultOutputEntry><text>${escape(o.default)}</text></defaultOutputEntry>` : ''}</output>`,
    )
    .join('');
  const rules = spec.rules
    .map(
      ([ins, outs], r) =>
        `<rule id="${id}_r${r}">${ins.map((t) => `<inputEntry><text>${escape(t)}</text></inputEntry>`).join('')}${outs
          .map((t) => `<outputEntry><text>${escape(t)}</text></outputEntry>`)
          .join('')}</rule>`,
    )
    .join('');
  return `<decisionTable id="${id}"${attrs}>${inputs}${outputs}${rules}</decisionTable>`;
}

/** A DMN document with the given DRG elements. */
export function definitions(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><definitions xmlns="${NS}" id="defs" name="test" namespace="urn:test">${body}</definitions>`;
}

/** A document with one decision `d` holding the table, reading free variables. */
export function tableModel(spec: TableSpec): string {
  return definitions(`<decision id="d" name="Decide">${tableXml(spec)}</decision>`);
}

/** An input data element. */
export function inputData(id: string, name: string, typeRef?: string): string {
  return `<inputData id="${id}" name="${name}"><variable name="${name}"${typeRef ? ` typeRef="${typeRef}"` : ''}/></inputData>`;
}

/** A decision with information requirements (ids of decisions and inputs) and a literal expression. */
export function literalDecision(
  id: string,
  name: string,
  text: string,
  requires: { decisions?: string[]; inputs?: string[]; knowledge?: string[] } = {},
): string {
  const req = [
    ...(requires.decisions ?? []).map(
      (r) => `<informationRequirement><requiredDecision href="#${r}"/></informationRequirement>`,
    ),
    ...(requires.inputs ?? []).map(
      (r) => `<informationRequirement><requiredInput href="#${r}"/></informationRequirement>`,
    ),
    ...(requires.knowledge ?? []).map(
      (r) => `<knowledgeRequirement><requiredKnowledge href="#${r}"/></knowledgeRequirement>`,
    ),
  ].join('');
  return `<decision id="${id}" name="${name}">${req}<literalExpression><text>${escape(text)}</text></literalExpression></decision>`;
}
