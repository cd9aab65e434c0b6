import type { ExtensionSpec, RawXmlElement } from '../engine/model/types.js';
import { validatePipeline } from './pipeline.js';
import { pipelineLimits } from './pipeline-limits.js';
import type { ScriptStepInput } from './types.js';

/**
 * `<weft:pipeline>` on a `bpmn:scriptTask` (namespace `https://weft.dev/schema/bpmn/1.0`): ordered
 * `<weft:step name="…" type="jq|feel|rhai" resultVariable="…">expression</weft:step>` children.
 * The format is described in docs/workflow/scripts.md.
 */
export const pipelineElementName = 'pipeline';

const stepElementName = 'step';
const stepAttributes = new Set(['name', 'type', 'resultVariable']);

/** A step's expression: the element text without the blank lines and trailing space around it. */
function expressionOf(step: RawXmlElement): string {
  return (step.text ?? '').replace(/^\s*\n/, '').trimEnd();
}

/** The steps of a `<weft:pipeline>` element, in document order, for the pipeline to validate and run. */
export function pipelineSteps(pipeline: RawXmlElement): ScriptStepInput[] {
  return pipeline.children
    .filter((child) => child.name === stepElementName)
    .map((step) => ({
      name: step.attributes.name ?? '',
      type: step.attributes.type ?? '',
      expression: expressionOf(step),
      resultVariable: step.attributes.resultVariable ?? null,
    }));
}

/** The steps of the `<weft:pipeline>` among an element's weft extensions; null when it has none. */
export function pipelineOf(element: { extensions: readonly RawXmlElement[] }): ScriptStepInput[] | null {
  const pipeline = element.extensions.find((raw) => raw.name === pipelineElementName);
  return pipeline === undefined ? null : pipelineSteps(pipeline);
}

/** Every problem of a `<weft:pipeline>` element, as messages; empty when it can be deployed. */
export function pipelineProblems(pipeline: RawXmlElement): string[] {
  const problems: string[] = [];
  for (const attribute of Object.keys(pipeline.attributes)) {
    problems.push(`unknown attribute '${attribute}'`);
  }
  if (pipeline.text !== null) problems.push('text must be inside a <weft:step>');
  for (const child of pipeline.children) {
    if (child.name !== stepElementName) problems.push(`unexpected <weft:${child.name}>; only <weft:step>`);
  }
  const steps = pipelineSteps(pipeline);
  if (steps.length === 0) problems.push('has no <weft:step>');
  if (steps.length > pipelineLimits.maxSteps) {
    problems.push(`has ${steps.length} steps; at most ${pipelineLimits.maxSteps} are allowed`);
  }
  const rawSteps = pipeline.children.filter((child) => child.name === stepElementName);
  const seen = new Set<string>();
  rawSteps.forEach((raw, index) => {
    const label = `step ${index}${raw.attributes.name ? ` (${JSON.stringify(raw.attributes.name)})` : ''}`;
    for (const attribute of Object.keys(raw.attributes)) {
      if (!stepAttributes.has(attribute)) {
        problems.push(`${label} has an unknown attribute '${attribute}'; use name, type and resultVariable`);
      }
    }
    if (raw.children.length > 0) problems.push(`${label} must contain only text (use CDATA for < and &)`);
    const name = raw.attributes.name;
    if (name === undefined || name.trim() === '') problems.push(`${label} has no name`);
    else if (name.length > pipelineLimits.maxNameLength) {
      problems.push(`${label} has a name over ${pipelineLimits.maxNameLength} characters`);
    } else if (seen.has(name)) problems.push(`${label} has the same name as an earlier step`);
    else seen.add(name);
    const resultVariable = raw.attributes.resultVariable;
    if (resultVariable !== undefined && resultVariable.trim() === '') {
      problems.push(`${label} has an empty resultVariable; leave the attribute out instead`);
    }
    if (expressionOf(raw).length > pipelineLimits.maxExpressionLength) {
      problems.push(`${label} has an expression over ${pipelineLimits.maxExpressionLength} characters`);
    }
  });
  // Unknown type (U020) and empty expression (U021), worded as the test endpoint words them.
  for (const problem of validatePipeline(steps)) problems.push(problem.message);
  return problems;
}

/** The `<weft:pipeline>` extension for the BPMN compiler: it implements a script task. */
export const pipelineExtension: ExtensionSpec = {
  implements: ['scriptTask'],
  validate: pipelineProblems,
};
