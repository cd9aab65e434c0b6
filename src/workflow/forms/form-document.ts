import { DEFAULT_MAX_JSON_DEPTH, findHostileInput } from '../../platform/http/input-guard.js';

/*
 * A Camunda Form: the form-js JSON Camunda Modeler saves as a `.form` file. Its top-level `id` is
 * the form's key, which `camunda:formRef` names; the rest is the schema, stored as it is.
 */

/** Longest form key (the JSON's `id`) and longest resource name a form may be deployed under. */
export const MAX_FORM_KEY = 255;
export const MAX_FORM_RESOURCE_NAME = 1000;

/** A form ready to store: its key, the name it was deployed under and its form-js schema. */
export interface FormDocument {
  formKey: string;
  resourceName: string;
  schema: Record<string, unknown>;
}

/** The outcome of reading a form: ready to store, or why it cannot be deployed. */
export type CheckedForm = { ok: true; form: FormDocument } | { ok: false; message: string };

/** Reads the text of a `.form` file: JSON of an object with a string `id`. */
export function parseFormFile(resourceName: string, text: string): CheckedForm {
  let schema: unknown;
  try {
    schema = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const reason = error instanceof Error ? `: ${error.message}` : '';
    return { ok: false, message: `the form '${resourceName}' is not valid JSON${reason}` };
  }
  return checkFormSchema(resourceName, schema);
}

/**
 * Checks a form's schema: a JSON object whose `id` is a non-empty string (at most 255 characters),
 * without what PostgreSQL cannot store or weft will not walk (NUL, lone surrogates, nesting deeper
 * than a request body may have).
 */
export function checkFormSchema(resourceName: string, schema: unknown): CheckedForm {
  const fail = (message: string): CheckedForm => ({
    ok: false,
    message: `the form '${resourceName}' ${message}`,
  });
  if (resourceName.trim() === '' || resourceName.length > MAX_FORM_RESOURCE_NAME)
    return { ok: false, message: `a form's name must have 1 to ${MAX_FORM_RESOURCE_NAME} characters` };
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return fail('is not a JSON object');
  const hostile = findHostileInput(
    { params: {}, querystring: {}, headers: {}, body: schema },
    DEFAULT_MAX_JSON_DEPTH,
  );
  if (hostile !== null) {
    const where = hostile.errors[0];
    const at =
      where === undefined ? '' : ` (${where.path.replace(/^body\.?/, '') || 'the form'} ${where.message})`;
    return fail(
      `cannot be stored: NUL characters, unpaired surrogates and nesting deeper than ${DEFAULT_MAX_JSON_DEPTH} levels are refused${at}`,
    );
  }
  const id = (schema as Record<string, unknown>).id;
  if (typeof id !== 'string' || id.trim() === '')
    return fail("has no string 'id': a Camunda Form's id is the key camunda:formRef names");
  if (id.length > MAX_FORM_KEY) return fail(`has an 'id' longer than ${MAX_FORM_KEY} characters`);
  return {
    ok: true,
    form: { formKey: id.trim(), resourceName, schema: schema as Record<string, unknown> },
  };
}

/**
 * The problems of a set of forms deployed together, by resource name: two forms with one key (the
 * second is the problem), as two files defining one process key are.
 */
export function formSetProblems(forms: readonly FormDocument[]): { name: string; message: string }[] {
  const keys = new Map<string, string>();
  const problems: { name: string; message: string }[] = [];
  for (const form of forms) {
    const other = keys.get(form.formKey);
    if (other !== undefined)
      problems.push({
        name: form.resourceName,
        message: `the form '${form.formKey}' is also defined in ${other}`,
      });
    else keys.set(form.formKey, form.resourceName);
  }
  return problems;
}
