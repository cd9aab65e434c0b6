import { readFile } from 'node:fs/promises';

/*
 * The multipart request Camunda Modeler sends to deploy, rebuilt from its source (read, not copied):
 * camunda/camunda-modeler, client/src/plugins/camunda-plugin/shared/CamundaAPI.js, `deployDiagram`.
 * It appends, in this order: `deployment-name` (the name entered in the deploy dialog),
 * `deployment-source` = "Camunda Modeler", `enable-duplicate-filtering` = "true", `tenant-id` (only
 * when one is entered), the diagram as a Blob of type text/xml under its file name (as both the field
 * name and the file name), then each attachment (forms and other files) the same way without a type.
 * Accept: application/json, and Basic or Bearer credentials. Other clients (Camunda's REST reference)
 * also send `deploy-changed-only` and `deployment-activation-time`.
 */

/** A file of a deployment request: its name and text. */
export interface ModelerFile {
  name: string;
  contents: string;
}

/** What a deployment request carries besides the diagram. */
export interface ModelerDeployment {
  name: string;
  tenantId?: string;
  attachments?: ModelerFile[];
  /** Fields other clients add (`deploy-changed-only`, …), appended after Modeler's. */
  extraFields?: Record<string, string>;
  /** Leaves out `deployment-source` and `enable-duplicate-filtering` (a minimal client). */
  minimal?: boolean;
}

/** The body and content type of the request, as fetch would send a FormData. */
export async function modelerDeploymentRequest(
  diagram: ModelerFile,
  deployment: ModelerDeployment,
): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  form.append('deployment-name', deployment.name);
  if (deployment.minimal !== true) {
    form.append('deployment-source', 'Camunda Modeler');
    form.append('enable-duplicate-filtering', 'true');
  }
  if (deployment.tenantId) form.append('tenant-id', deployment.tenantId);
  form.append(diagram.name, new Blob([diagram.contents], { type: 'text/xml' }), diagram.name);
  for (const file of deployment.attachments ?? [])
    form.append(file.name, new Blob([file.contents]), file.name);
  for (const [name, value] of Object.entries(deployment.extraFields ?? {})) form.append(name, value);
  // A Request serialises the form exactly as fetch sends it (boundary and part headers included).
  const request = new Request('http://weft.test/engine-rest/deployment/create', {
    method: 'POST',
    body: form,
  });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { 'content-type': request.headers.get('content-type') ?? '', accept: 'application/json' },
  };
}

/** A fixture file of this folder. */
export async function fixtureFile(name: string): Promise<ModelerFile> {
  return { name, contents: await readFile(new URL(`./fixtures/${name}`, import.meta.url), 'utf8') };
}
