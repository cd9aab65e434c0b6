import { isDeepStrictEqual } from 'node:util';
import type { Pool, PoolClient } from '../../platform/database/pool.js';
import type { FormReference } from '../engine/model/index.js';
import { findDefinition } from '../engine/store/process-definitions.js';
import { embeddedFormSchema } from './embedded-form.js';
import type { FormDocument } from './form-document.js';
import {
  findForm,
  insertForm,
  latestForm,
  lockFormKeys,
  type FormLookup,
  type FormRecord,
} from './form-repository.js';

/*
 * Camunda Forms deployed alongside BPMN (docs/workflow/forms.md): stored as versions of their key,
 * and found for a user task or start event by its `camunda:formRef` or form key.
 */

/** The form key prefix of a form embedded in the BPMN document (Camunda 8 Modeler). */
export const EMBEDDED_FORM_PREFIX = 'camunda-forms:bpmn:';

/** A form of a deployment as stored: a new version, or the unchanged latest one. */
export interface StoredForm {
  form: FormRecord;
  created: boolean;
}

/** What a task's or start event's form is (its model's form key and `camunda:formRef`). */
export type FormOutcome =
  | { kind: 'found'; schema: Record<string, unknown> }
  /** The model names no form. */
  | { kind: 'none' }
  /** A form key that names no form weft holds (an app form, an external form's address). */
  | { kind: 'notDeployed'; formKey: string }
  /** A reference to a form that is not there. */
  | { kind: 'missing'; missing: MissingForm };

/** What was looked for and not found. */
export type MissingForm =
  | { by: 'formRef'; reference: FormReference }
  | { by: 'resource'; resourceName: string }
  | { by: 'embedded'; formId: string };

/** Stores deployed forms and finds the form of a user task or start event. */
export class FormService {
  constructor(private readonly pool: Pool) {}

  /**
   * Stores checked forms of an org in the caller's transaction: each becomes the next version of its
   * key, or stays the latest version when that has the same schema and resource name — unless
   * `redeploy` (the deployment created a process version), so that the new process version finds
   * its forms in its own deployment (binding `deployment`, `camunda-forms:deployment:`).
   */
  async store(
    client: PoolClient,
    orgId: string,
    forms: readonly FormDocument[],
    options: { redeploy: boolean },
  ): Promise<StoredForm[]> {
    await lockFormKeys(
      client,
      orgId,
      forms.map((form) => form.formKey),
    );
    const stored: StoredForm[] = [];
    for (const form of forms) {
      const latest = await latestForm(client, orgId, form.formKey);
      if (
        latest !== null &&
        !options.redeploy &&
        latest.resource_name === form.resourceName &&
        isDeepStrictEqual(latest.schema, form.schema)
      ) {
        stored.push({ form: latest, created: false });
        continue;
      }
      const record = await insertForm(client, {
        orgId,
        formKey: form.formKey,
        version: (latest?.version ?? 0) + 1,
        resourceName: form.resourceName,
        schema: form.schema,
      });
      stored.push({ form: record, created: true });
    }
    return stored;
  }

  /**
   * The form of an element of a process definition, by its form key (checked first, as Camunda
   * does) or its `camunda:formRef`: a form-js schema deployed alongside (binding `latest`: the
   * newest version of the key in the org; `deployment`: the version deployed with the definition;
   * `version`: that version), one deployed with the definition under a resource name
   * (`camunda-forms:deployment:<name>`), or one embedded in the definition's document
   * (`camunda-forms:bpmn:<id>`).
   */
  async resolve(
    definitionId: string,
    formKey: string | null,
    formRef: FormReference | null,
  ): Promise<FormOutcome> {
    if (formKey !== null) {
      if (formKey.startsWith(EMBEDDED_FORM_PREFIX)) {
        const definition = await findDefinition(this.pool, definitionId);
        const schema = definition === null ? null : await embeddedFormSchema(definition.xml, formKey);
        if (schema !== null) return { kind: 'found', schema };
        return {
          kind: 'missing',
          missing: { by: 'embedded', formId: formKey.slice(EMBEDDED_FORM_PREFIX.length) },
        };
      }
      const resourceName = deployedResourceName(formKey);
      if (resourceName === null) return { kind: 'notDeployed', formKey };
      return this.found(definitionId, { by: 'resource', resourceName }, { by: 'resource', resourceName });
    }
    if (formRef === null) return { kind: 'none' };
    const lookup: FormLookup =
      formRef.binding === 'version'
        ? { by: 'version', formKey: formRef.formKey, version: formRef.version ?? 0 }
        : { by: formRef.binding, formKey: formRef.formKey };
    return this.found(definitionId, lookup, { by: 'formRef', reference: formRef });
  }

  private async found(definitionId: string, lookup: FormLookup, missing: MissingForm): Promise<FormOutcome> {
    const form = await findForm(this.pool, definitionId, lookup);
    return form === null ? { kind: 'missing', missing } : { kind: 'found', schema: form.schema };
  }
}

/**
 * The resource name a form key names in its deployment, as Camunda 7 reads it: `deployment:<name>`,
 * optionally after `embedded:` or `camunda-forms:`; null for any other key (`camunda-forms:app:…`,
 * `embedded:app:…`, an external form's address). weft stores only Camunda Forms, so only a
 * `.form` resource is ever found.
 */
export function deployedResourceName(formKey: string): string | null {
  const rest = formKey.startsWith('embedded:')
    ? formKey.slice('embedded:'.length)
    : formKey.startsWith('camunda-forms:')
      ? formKey.slice('camunda-forms:'.length)
      : formKey;
  return rest.startsWith('deployment:') ? rest.slice('deployment:'.length) : null;
}
