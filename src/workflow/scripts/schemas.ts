import Type from 'typebox';
import { pipelineLimits } from './pipeline-limits.js';

const Name = Type.String({ minLength: 1, maxLength: pipelineLimits.maxNameLength });

/** One step of the script pipeline test body. */
export const ScriptStepBody = Type.Object(
  {
    name: Name,
    type: Type.String({
      maxLength: pipelineLimits.maxNameLength,
      description: '`jq`, `feel` or `rhai`; any other value gives U020',
      examples: ['jq'],
    }),
    expression: Type.String({
      maxLength: pipelineLimits.maxExpressionLength,
      description: 'The step source; empty or blank gives U021',
    }),
    result_variable: Type.Optional(
      Type.Union([Name, Type.Null()], {
        description: 'FEEL and Rhai: the variable that receives the result (jq merges its object instead)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Body of `POST /api/v1/scripts/execute`. */
export const ExecuteScriptsBody = Type.Object(
  {
    steps: Type.Array(ScriptStepBody, { minItems: 1, maxItems: pipelineLimits.maxSteps }),
    variables: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Sample input variables; default {}' }),
    ),
    run_until_step: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'Run up to and including the step of this name; null or absent runs every step',
      }),
    ),
  },
  { additionalProperties: false },
);

const StepErrorBody = Type.Object({
  message: Type.String(),
  line: Type.Union([Type.Integer(), Type.Null()], { description: '1-based, null when unknown' }),
  column: Type.Union([Type.Integer(), Type.Null()], { description: '1-based, null when unknown' }),
});

/** One step's entry in the response. */
export const StepResultBody = Type.Object({
  name: Type.String(),
  type: Type.String(),
  status: Type.Enum(['ok', 'error']),
  output: Type.Unknown({ description: 'The value the step produced; null for a failed step' }),
  duration_ms: Type.Number(),
  error: Type.Optional(StepErrorBody),
});

/** 200 response of `POST /api/v1/scripts/execute`. */
export const ExecuteScriptsResponse = Type.Object({
  steps: Type.Array(StepResultBody, {
    description: 'One entry per step that ran; a failed step is the last entry',
  }),
  variables_after: Type.Record(Type.String(), Type.Unknown(), {
    description: 'The variables after the last successful step',
  }),
});
