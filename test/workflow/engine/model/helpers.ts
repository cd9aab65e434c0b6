import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type {
  CompileOptions,
  ElementModel,
  ModelProblem,
  ProcessModel,
} from '../../../../src/workflow/engine/model/index.js';
import { compileBpmn } from '../../../../src/workflow/engine/model/index.js';

/** Text of a fixture in this folder's `fixtures/`. */
export function fixture(name: string): string {
  return readFileSync(fileURLToPath(new URL(`fixtures/${name}`, import.meta.url)), 'utf8');
}

/** Wraps process content in definitions with the BPMN, Camunda, Zeebe and weft namespaces. */
export function definitions(processBody: string, head = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"
  xmlns:weft="https://weft.dev/schema/bpmn/1.0" id="Defs" targetNamespace="urn:test">
  ${head}
  <bpmn:process id="p" isExecutable="true">${processBody}</bpmn:process>
</bpmn:definitions>`;
}

/** Compiles and asserts success, returning the single process. */
export async function compileOne(xml: string, options?: CompileOptions): Promise<ProcessModel> {
  const result = await compileBpmn(xml, options);
  assert.ok(result.ok, `expected success, got ${JSON.stringify(!result.ok && result.problems)}`);
  assert.equal(result.processes.length, 1);
  const process = result.processes[0];
  assert.ok(process !== undefined);
  return process;
}

/** Compiles and asserts failure, returning the problems. */
export async function compileProblems(xml: string, options?: CompileOptions): Promise<ModelProblem[]> {
  const result = await compileBpmn(xml, options);
  assert.ok(!result.ok, 'expected problems, got a compiled model');
  return result.problems;
}

/** The element with the given id and type, asserting both. */
export function element<T extends ElementModel['type']>(
  model: ProcessModel,
  id: string,
  type: T,
): Extract<ElementModel, { type: T }> {
  const found = model.elements[id];
  assert.ok(found !== undefined, `no element '${id}'`);
  assert.equal(found.type, type);
  return found as Extract<ElementModel, { type: T }>;
}

/** Asserts that some problem names the element and matches the pattern. */
export function assertProblem(problems: ModelProblem[], elementId: string | null, pattern: RegExp): void {
  assert.ok(
    problems.some((p) => p.elementId === elementId && pattern.test(p.message)),
    `no problem on ${String(elementId)} matching ${String(pattern)} in ${JSON.stringify(problems, null, 1)}`,
  );
}

/** start → [body elements wired by the caller] helper flows: a minimal valid frame around one task. */
export function around(task: string, taskId: string): string {
  return `<bpmn:startEvent id="s"/>${task}<bpmn:endEvent id="e"/>
  <bpmn:sequenceFlow id="fs" sourceRef="s" targetRef="${taskId}"/>
  <bpmn:sequenceFlow id="fe" sourceRef="${taskId}" targetRef="e"/>`;
}
