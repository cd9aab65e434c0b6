import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/database/pool.js';
import {
  BundleProblems,
  type BundleDeployments,
  type BundleProblem,
  type BundleResource,
} from '../deployments/bundle-deployment.js';
import type { Identity } from '../identity/auth/identity.js';
import {
  countDeployments,
  deploymentIdOf,
  listDeployments,
  type DeploymentPage,
  type DeploymentQuery,
  type DeploymentRecord,
} from '../engine/store/deployment-view.js';
import type { TaskScope } from '../external-tasks/task-scope.js';
import { parseCamundaDate } from './camunda-date.js';
import { CamundaError, CamundaErrors } from './camunda-errors.js';
import type { DeploymentForm } from './deployment-multipart.js';
import {
  byId,
  decisionDefinitionDto,
  deploymentDto,
  type DeploymentDto,
  type DeploymentWithDefinitionsDto,
} from './deployment-dto.js';
import { selfLink } from './links.js';
import { processDefinitionDto } from './process-definition-dto.js';
import { isWeftId } from './query-parameters.js';
import type { Tenants } from './tenants.js';

/** The process group a deployment without `deployment-name` goes into. */
export const defaultGroupName = 'Camunda';
const maxGroupName = 200;

// Camunda Modeler shows a deployment error as a parse error when the message starts so.
const bpmnParsePrefix = 'ENGINE-09005 Could not parse BPMN process.';

/** A page of GET /deployment and the filters of it and of /count. */
export interface CamundaDeploymentQuery {
  query: Omit<DeploymentQuery, 'orgIds'>;
  tenantIds: readonly string[] | undefined;
  page: DeploymentPage;
}

/**
 * Camunda 7's deployment resource over weft's bundle deployments (deployments/bundle-deployment.ts)
 * and its view of deployments (engine/store/deployment-view.ts).
 */
export class CamundaDeploymentApi {
  constructor(
    private readonly pool: Pool,
    private readonly bundles: BundleDeployments,
    private readonly tenants: Tenants,
    private readonly clock: Clock,
  ) {}

  /** POST /deployment/create: every BPMN, DMN and form file in one transaction. */
  async create(
    identity: Identity,
    form: DeploymentForm,
    request: FastifyRequest,
  ): Promise<DeploymentWithDefinitionsDto> {
    const field = (name: string) => {
      const value = form.fields[name];
      return value === undefined || value === '' ? undefined : value;
    };
    for (const name of ['deploy-changed-only', 'enable-duplicate-filtering']) {
      const value = field(name);
      if (value !== undefined && value !== 'true' && value !== 'false')
        throw CamundaErrors.invalid(`The form field '${name}' must be true or false`);
    }
    const activation = field('deployment-activation-time');
    if (activation !== undefined) {
      const date = parseCamundaDate(activation);
      if (date === null)
        throw CamundaErrors.invalid(
          "The form field 'deployment-activation-time' must be a date in the format yyyy-MM-dd'T'HH:mm:ss.SSSZ",
        );
      if (date.getTime() > this.clock.now().getTime())
        throw CamundaErrors.invalid(
          'deployment-activation-time in the future is not supported by weft: definitions are active when deployed',
        );
    }
    const groupName = (field('deployment-name') ?? defaultGroupName).trim() || defaultGroupName;
    if (groupName.length > maxGroupName)
      throw CamundaErrors.invalid(`deployment-name is longer than ${maxGroupName} characters`);
    const resources = deployableResources(form);
    const tenant = await this.tenants.single(identity, field('tenant-id'), 'tenant-id');
    let result;
    try {
      result = await this.bundles.deploy(identity, { orgId: tenant.orgId, groupName, resources });
    } catch (error) {
      if (error instanceof BundleProblems) throw parseException(error, resources);
      throw error;
    }

    const newProcesses = result.resources.flatMap((resource) =>
      resource.kind === 'bpmn'
        ? resource.definitions
            .filter((definition) => resource.newIds.has(definition.id))
            .map((definition) => ({ definition, resource: resource.name }))
        : [],
    );
    const newDecisions = result.resources.flatMap((resource) =>
      resource.kind === 'dmn'
        ? resource.decisions
            .filter((decision) => resource.newKeys.has(decision.decision_key))
            .map((decision) => ({ decision, resource: resource.name }))
        : [],
    );
    const newForm = result.resources.find((resource) => resource.kind === 'form' && resource.form.created);
    // Nothing new: the answer is the deployment that holds the latest version of the first file's first
    // process, decision or form, with no definitions, as Camunda answers a filtered duplicate.
    const first = result.resources[0];
    const memberId =
      newProcesses[0]?.definition.id ??
      newDecisions[0]?.decision.id ??
      (newForm?.kind === 'form' ? newForm.form.form.id : undefined) ??
      (first?.kind === 'bpmn'
        ? first.definitions[0]?.id
        : first?.kind === 'dmn'
          ? first.decisions[0]?.id
          : first?.form.form.id);
    const deploymentId = memberId === undefined ? null : await deploymentIdOf(this.pool, memberId);
    const deployment = deploymentId === null ? undefined : await this.find(deploymentId, 'all');
    if (deployment === undefined) throw new Error('a deployment just written is not found');
    return {
      ...deploymentDto(deployment, selfLink(request, `/deployment/${deployment.id}`)),
      deployedProcessDefinitions: byId(
        newProcesses.map(({ definition, resource }) =>
          processDefinitionDto(
            { ...definition, tenant_id: deployment.tenant_id, deployment_id: deployment.id },
            resource,
          ),
        ),
      ),
      deployedCaseDefinitions: null,
      deployedDecisionDefinitions: byId(
        newDecisions.map(({ decision, resource }) => decisionDefinitionDto(decision, deployment, resource)),
      ),
      deployedDecisionRequirementsDefinitions: null,
    };
  }

  /** GET /deployment. */
  async list(
    request: CamundaDeploymentQuery,
    scope: TaskScope,
    http: FastifyRequest,
  ): Promise<DeploymentDto[]> {
    const orgIds = await this.orgIds(scope, request.tenantIds);
    const rows = await listDeployments(this.pool, { ...request.query, orgIds }, request.page);
    return rows.map((row) => deploymentDto(row, selfLink(http, `/deployment/${row.id}`)));
  }

  /** GET /deployment/count. */
  async count(request: CamundaDeploymentQuery, scope: TaskScope): Promise<number> {
    const orgIds = await this.orgIds(scope, request.tenantIds);
    return countDeployments(this.pool, { ...request.query, orgIds });
  }

  /** GET /deployment/{id}: 404 for an unknown deployment and for one outside the scope. */
  async get(id: string, scope: TaskScope, http: FastifyRequest): Promise<DeploymentDto> {
    const deployment = await this.find(id, scope);
    if (deployment === undefined) throw CamundaErrors.notFound(`Deployment with id '${id}' does not exist`);
    return deploymentDto(deployment, selfLink(http, `/deployment/${deployment.id}`));
  }

  private async find(id: string, scope: TaskScope): Promise<DeploymentRecord | undefined> {
    if (!isWeftId(id)) return undefined;
    const [deployment] = await listDeployments(
      this.pool,
      { orgIds: scope === 'all' ? undefined : scope.orgIds, id },
      { sortBy: 'id', descending: false, offset: 0, limit: 1 },
    );
    return deployment;
  }

  private async orgIds(scope: TaskScope, tenantIds: readonly string[] | undefined) {
    const narrowed = await this.tenants.narrow(scope, tenantIds);
    return narrowed === 'all' ? undefined : narrowed.orgIds;
  }
}

// The files weft deploys: BPMN, DMN and Camunda Forms; any other file is refused, so that nothing is
// deployed without it.
function deployableResources(form: DeploymentForm): BundleResource[] {
  const resources: BundleResource[] = [];
  const seen = new Set<string>();
  for (const file of form.files) {
    const lower = file.name.toLowerCase();
    if (seen.has(file.name))
      throw CamundaErrors.invalid(`The deployment has two resources named '${file.name}'`);
    seen.add(file.name);
    if (lower.endsWith('.bpmn') || lower.endsWith('.bpmn20.xml'))
      resources.push({ name: file.name, kind: 'bpmn', xml: file.content });
    else if (lower.endsWith('.dmn') || lower.endsWith('.dmn11.xml'))
      resources.push({ name: file.name, kind: 'dmn', xml: file.content });
    else if (lower.endsWith('.form')) resources.push({ name: file.name, kind: 'form', text: file.content });
    else
      throw CamundaErrors.invalid(
        `The resource '${file.name}' cannot be deployed: weft deploys BPMN (.bpmn), DMN (.dmn) and Camunda Form (.form) files`,
      );
  }
  if (resources.length === 0)
    throw CamundaErrors.invalid('The deployment has no BPMN (.bpmn), DMN (.dmn) or form (.form) resource');
  return resources;
}

/** Camunda's ParseException: every problem, by resource, with the line and column of its element. */
function parseException(error: BundleProblems, resources: readonly BundleResource[]): CamundaError {
  const details: Record<string, { errors: ProblemDto[]; warnings: ProblemDto[] }> = {};
  const lines: string[] = [];
  let bpmn = false;
  for (const [name, problems] of error.problems) {
    const resource = resources.find((candidate) => candidate.name === name);
    if (resource?.kind === 'bpmn') bpmn = true;
    const errors = problems.map((problem) =>
      problemDto(problem, resource === undefined || resource.kind === 'form' ? '' : resource.xml),
    );
    Object.defineProperty(details, name, {
      value: { errors, warnings: [] },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    for (const problem of errors)
      lines.push(
        `* ${problem.message} | resource ${name} | line ${problem.line} | column ${problem.column}${
          problem.mainElementId === null ? '' : ` | element ${problem.mainElementId}`
        }`,
      );
  }
  const heading = bpmn ? `${bpmnParsePrefix} Errors: ` : 'Could not parse the deployment. Errors: ';
  return new CamundaError(400, 'ParseException', `${heading}\n${lines.join('\n')}`, undefined, { details });
}

/** Camunda's ProblemDto. */
interface ProblemDto {
  message: string;
  line: number;
  column: number;
  mainElementId: string | null;
  elementIds: string[];
}

function problemDto(problem: BundleProblem, xml: string): ProblemDto {
  const position = problem.elementId === null ? null : elementPosition(xml, problem.elementId);
  return {
    message: problem.message,
    line: position?.line ?? 0,
    column: position?.column ?? 0,
    mainElementId: problem.elementId,
    elementIds: problem.elementId === null ? [] : [problem.elementId],
  };
}

/** Where the start tag of the element with this id is (1-based), as a parser would report it. */
export function elementPosition(xml: string, elementId: string): { line: number; column: number } | null {
  const escaped = elementId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`\\sid\\s*=\\s*["']${escaped}["']`).exec(xml);
  if (match === null) return null;
  const at = match.index;
  const start = xml.lastIndexOf('<', at);
  const offset = start < 0 ? at : start;
  const before = xml.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return { line, column };
}
