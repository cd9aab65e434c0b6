import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { HttpServer } from '../../platform/http/http-server.js';
import { CamundaError, CamundaErrors } from './camunda-errors.js';

/*
 * The multipart form of POST /deployment/create, as Camunda Modeler and other clients send it:
 * text fields (`deployment-name`, `deployment-source`, `tenant-id`, …) and one or more files under
 * any field name. Parsing is bounded: the files' size (each and together) by weft's body limit, and
 * the number of parts, files and fields; going past a bound is a 413, a form that cannot be read a
 * 400, both with Camunda's error body.
 */

/** The bounds of one deployment form. */
export interface DeploymentFormLimits {
  /** Largest file, and largest sum of files (weft's body limit, WEFT_BODY_LIMIT_BYTES). */
  maxBytes: number;
}

const maxFiles = 50;
const maxFields = 20;
const maxFieldBytes = 4096;

/** One file of the form: the name it was sent with (the part's file name, else its field name). */
export interface DeploymentFile {
  name: string;
  content: string;
}

/** The form's text fields by name, and its files in the order sent. */
export interface DeploymentForm {
  fields: Record<string, string>;
  files: DeploymentFile[];
}

/** Lets the scope read multipart bodies (only the Camunda scope: weft's own API takes JSON). */
export function registerDeploymentMultipart(scope: HttpServer, limits: DeploymentFormLimits): void {
  void scope.register(multipart, {
    limits: {
      fileSize: limits.maxBytes,
      files: maxFiles,
      fields: maxFields,
      fieldSize: maxFieldBytes,
      parts: maxFiles + maxFields,
      headerPairs: 100,
    },
  });
}

/** Reads a deployment form; Camunda-shaped 400, 413 or 415 when it is not one or is too large. */
export async function readDeploymentForm(
  request: FastifyRequest,
  limits: DeploymentFormLimits,
): Promise<DeploymentForm> {
  if (!request.isMultipart())
    throw CamundaErrors.rest(415, 'The deployment must be sent as multipart/form-data');
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  const files: DeploymentFile[] = [];
  let total = 0;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (part.valueTruncated)
          throw CamundaErrors.invalid(
            `The form field '${part.fieldname}' is longer than ${maxFieldBytes} bytes`,
          );
        if (typeof part.value !== 'string')
          throw CamundaErrors.invalid(`The form field '${part.fieldname}' must be text`);
        if (Object.hasOwn(fields, part.fieldname))
          throw CamundaErrors.invalid(`The form field '${part.fieldname}' is given more than once`);
        fields[part.fieldname] = part.value;
        continue;
      }
      const content = await part.toBuffer();
      total += content.length;
      if (total > limits.maxBytes)
        throw CamundaErrors.rest(
          413,
          `The deployment's files are larger than ${limits.maxBytes} bytes together`,
        );
      const name = part.filename === '' ? part.fieldname : part.filename;
      files.push({ name, content: content.toString('utf8') });
    }
  } catch (error) {
    throw formError(error, limits);
  }
  return { fields, files };
}

// Errors of the multipart parser and of busboy (a broken form) as Camunda errors.
function formError(error: unknown, limits: DeploymentFormLimits): Error {
  if (error instanceof CamundaError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return CamundaErrors.rest(413, `A file of the deployment is larger than ${limits.maxBytes} bytes`);
    case 'FST_FILES_LIMIT':
      return CamundaErrors.rest(413, `A deployment has at most ${maxFiles} files`);
    case 'FST_FIELDS_LIMIT':
      return CamundaErrors.rest(413, `A deployment has at most ${maxFields} form fields`);
    case 'FST_PARTS_LIMIT':
      return CamundaErrors.rest(413, `A deployment has at most ${maxFiles + maxFields} parts`);
  }
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 500) return error as Error;
  const detail = error instanceof Error ? `: ${error.message}` : '';
  return CamundaErrors.invalid(`The multipart/form-data body cannot be read${detail}`);
}
