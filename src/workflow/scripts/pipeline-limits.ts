/**
 * Size limits of a pipeline, shared by `POST /api/v1/scripts/execute` and `<weft:pipeline>`, so a
 * pipeline that can be tested can also be deployed.
 */
export const pipelineLimits = Object.freeze({
  /** Steps in one pipeline. */
  maxSteps: 50,
  /** Characters of one step's expression. */
  maxExpressionLength: 65_536,
  /** Characters of a step name, a step type or a result variable. */
  maxNameLength: 200,
  /** Nesting depth of the sample variables sent to the test endpoint. */
  maxVariablesDepth: 64,
});
