import type { FormReference } from '../engine/model/index.js';
import type { FormOutcome } from '../forms/form-service.js';
import { CamundaErrors } from './camunda-errors.js';

/*
 * Camunda 7's form answers: the FormDto of GET /task/{id}/form and /process-definition/{id}/startForm,
 * and the deployed form of …/deployed-form and …/deployed-start-form, with Camunda's errors when
 * there is none (docs/workflow/camunda7.md, Tasks and Process definitions).
 */

/** Camunda's CamundaFormRef: the key, binding and version of a `camunda:formRef`. */
export interface CamundaFormRefDto {
  key: string;
  binding: string;
  version: number | null;
}

/** Camunda's FormDto. weft serves no process applications, so `contextPath` is null. */
export interface FormDto {
  key: string | null;
  contextPath: null;
  camundaFormRef: CamundaFormRefDto | null;
}

/** The CamundaFormRef of a model's form reference (null for none). */
export function camundaFormRefDto(reference: FormReference | null | undefined): CamundaFormRefDto | null {
  if (reference === null || reference === undefined) return null;
  return { key: reference.formKey, binding: reference.binding, version: reference.version };
}

/** The FormDto of a model's form key and form reference. */
export function formDto(
  formKey: string | null | undefined,
  reference: FormReference | null | undefined,
): FormDto {
  return { key: formKey ?? null, contextPath: null, camundaFormRef: camundaFormRefDto(reference) };
}

/**
 * The form-js JSON a deployed-form request answers; otherwise Camunda's errors: 400 when the model
 * names no form or a form key that references no deployed form, 404 when the form it references is
 * not there. `deploymentId` gives the id of the definition's deployment for the message.
 */
export async function deployedFormOf(
  outcome: FormOutcome,
  deploymentId: () => Promise<string | null>,
): Promise<Record<string, unknown>> {
  switch (outcome.kind) {
    case 'found':
      return outcome.schema;
    case 'none':
      throw CamundaErrors.invalid(
        "One of the attributes 'formKey' and 'camunda:formRef' must be supplied but none were set.",
      );
    case 'notDeployed':
      throw CamundaErrors.invalid(`The form key '${outcome.formKey}' does not reference a deployed form.`);
    case 'missing': {
      const missing = outcome.missing;
      if (missing.by === 'formRef') {
        const { formKey, binding, version } = missing.reference;
        throw CamundaErrors.notFound(
          `No Camunda Form Definition was found for Camunda Form Ref: CamundaFormRefImpl [key=${formKey}, binding=${binding}, version=${version ?? 'null'}]`,
        );
      }
      if (missing.by === 'resource')
        throw CamundaErrors.notFound(
          `The form with the resource name '${missing.resourceName}' cannot be found in deployment with id ${(await deploymentId()) ?? 'null'}`,
        );
      throw CamundaErrors.notFound(
        `The form with the id '${missing.formId}' is not embedded in the process definition's BPMN document`,
      );
    }
  }
}
