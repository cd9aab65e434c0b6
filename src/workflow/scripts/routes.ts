import type { HttpServer } from '../../platform/http/http-server.js';
import { ServiceError } from '../../platform/http/service-error.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { authenticatedErrors, bearerSecurity } from '../common-schemas.js';
import { WorkflowErrors } from '../errors.js';
import { nestsDeeperThan } from './json-depth.js';
import { validatePipeline, type PipelineValidationProblem } from './pipeline.js';
import { pipelineLimits } from './pipeline-limits.js';
import type { ScriptSandbox } from './sandbox.js';
import { ExecuteScriptsBody, ExecuteScriptsResponse } from './schemas.js';
import type { Variables } from './types.js';
import { fromWireSteps, toWirePipelineResult } from './wire.js';

/**
 * The 400 for invalid steps: every problem in `details.errors`, the first one's code (U020 or U021)
 * as the response code.
 */
export function invalidPipeline(problems: readonly PipelineValidationProblem[]): ServiceError {
  const [first] = problems;
  const message =
    problems.length === 1 && first !== undefined
      ? first.message
      : `${problems.length} problems in the script steps: ${problems.map((p) => p.message).join('; ')}`;
  return new ServiceError(400, first?.code ?? 'U400', message, {
    errors: problems.map(({ index, name, code, message: text }) => ({ index, name, code, message: text })),
  });
}

/** POST /api/v1/scripts/execute: runs a pipeline over sample variables in the sandbox; writes nothing. */
export function registerScriptRoutes(app: HttpServer, sandbox: ScriptSandbox): void {
  app.post(
    '/api/v1/scripts/execute',
    {
      schema: {
        tags: ['scripts'],
        summary: 'Test a Script Task pipeline over sample variables (nothing is started or stored)',
        description:
          'Every step is validated before any runs (400 U020 unknown type, U021 empty expression, all problems in details.errors). A step that fails at run time is status "error" in the 200 and ends the run.',
        security: bearerSecurity,
        body: ExecuteScriptsBody,
        response: { 200: ExecuteScriptsResponse, ...authenticatedErrors },
      },
    },
    async (request) => {
      identityOf(request);
      const { steps: wireSteps, variables = {}, run_until_step: runUntilStep = null } = request.body;
      const steps = fromWireSteps(wireSteps);
      const problems = validatePipeline(steps);
      if (problems.length > 0) throw invalidPipeline(problems);
      if (runUntilStep !== null && !steps.some((step) => step.name === runUntilStep)) {
        throw WorkflowErrors.validation(`run_until_step ${JSON.stringify(runUntilStep)} names no step`, {
          errors: [{ path: '/run_until_step', message: 'must be the name of one of the steps, or null' }],
        });
      }
      if (nestsDeeperThan(variables, pipelineLimits.maxVariablesDepth)) {
        throw WorkflowErrors.validation(
          `variables nest deeper than ${pipelineLimits.maxVariablesDepth} levels`,
          { errors: [{ path: '/variables', message: 'nested too deeply' }] },
        );
      }
      // The body is parsed JSON, so every value is a JsonValue.
      const result = await sandbox.run(steps, variables as Variables, { runUntilStep });
      return toWirePipelineResult(result);
    },
  );
}
