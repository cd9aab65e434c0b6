/**
 * The JavaScript evaluated inside the QuickJS context before a script task's script, as a function
 * of the input JSON. It defines the Camunda-style `execution` object and the top-level variable
 * names, and returns the function that turns the script's completion value and the variables it set
 * into one JSON text. It runs inside the sandboxed interpreter, so it is kept as source text here.
 *
 * Values are JSON-only: `setVariable` stores a JSON copy of the value at the time of the call (dates
 * become their ISO text, `undefined` null; a value JSON cannot hold, such as a BigInt or a cycle,
 * throws at that call, so the error points at the script's line).
 */
export const javascriptPrelude = String.raw`(function (inputJson) {
  'use strict';
  const input = JSON.parse(inputJson);
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const keys = Object.keys;
  const values = new Map();
  for (const name of keys(input.variables)) values.set(name, input.variables[name]);
  const changes = new Map();
  const assigned = new Map();
  const orNull = function (key, value) { return value === undefined ? null : value; };
  const toJsonText = function (value, what) {
    let text;
    try {
      text = stringify(value, orNull);
    } catch (e) {
      throw new TypeError(what + ' cannot be stored as JSON: ' + (e && e.message));
    }
    return text === undefined ? 'null' : text;
  };
  const checkName = function (name, method) {
    if (typeof name !== 'string' || name === '') {
      throw new TypeError('execution.' + method + ' needs a variable name (a non-empty string)');
    }
  };
  const own = function (target, key, value) {
    defineProperty(target, key, { value: value, enumerable: true, writable: true, configurable: true });
  };
  const setVariable = function (name, value) {
    checkName(name, 'setVariable');
    const text = toJsonText(value, "variable '" + name + "'");
    changes.set(name, text);
    values.set(name, parse(text));
  };
  const getVariable = function (name) {
    checkName(name, 'getVariable');
    return values.has(name) ? values.get(name) : null;
  };
  const ids = input.execution;
  const eventName = ids.eventName === undefined ? null : ids.eventName;
  const execution = {
    getVariable: getVariable,
    getVariableLocal: getVariable,
    getVariables: function () {
      const all = {};
      values.forEach(function (value, name) { own(all, name, value); });
      return all;
    },
    getVariableNames: function () { return Array.from(values.keys()); },
    hasVariable: function (name) { checkName(name, 'hasVariable'); return values.has(name); },
    setVariable: setVariable,
    setVariables: function (variables) {
      if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) {
        throw new TypeError('execution.setVariables needs an object of variables');
      }
      for (const name of keys(variables)) setVariable(name, variables[name]);
    },
    removeVariable: function () {
      throw new Error('execution.removeVariable is not supported in weft; set the variable to null instead');
    },
    getId: function () { return ids.executionId; },
    getProcessInstanceId: function () { return ids.processInstanceId; },
    getProcessBusinessKey: function () { return ids.processBusinessKey; },
    getBusinessKey: function () { return ids.processBusinessKey; },
    getProcessDefinitionId: function () { return ids.processDefinitionId; },
    getCurrentActivityId: function () { return ids.activityId; },
    getActivityId: function () { return ids.activityId; },
    getEventName: function () { return eventName; },
    id: ids.executionId,
    processInstanceId: ids.processInstanceId,
    processBusinessKey: ids.processBusinessKey,
    businessKey: ids.processBusinessKey,
    processDefinitionId: ids.processDefinitionId,
    currentActivityId: ids.activityId,
    activityId: ids.activityId,
    eventName: eventName,
  };
  defineProperty(globalThis, 'execution', { value: freeze(execution), enumerable: false, writable: false, configurable: false });
  // A task listener's task: its assignee may change; variables are the execution's (Camunda's task
  // variables go up to the execution's scopes when not set locally, and a task has none of its own here).
  const taskInput = input.task;
  const taskState = taskInput ? { assignee: taskInput.assignee } : null;
  if (taskInput) {
    const checkUser = function (user) {
      if (user !== null && user !== undefined && typeof user !== 'string') {
        throw new TypeError('task.setAssignee needs a user id (a string) or null');
      }
      return user === undefined || user === '' ? null : user;
    };
    const task = {
      getVariable: getVariable,
      getVariableLocal: getVariable,
      getVariables: execution.getVariables,
      hasVariable: execution.hasVariable,
      setVariable: setVariable,
      setVariableLocal: setVariable,
      setVariables: execution.setVariables,
      getAssignee: function () { return taskState.assignee; },
      setAssignee: function (user) { taskState.assignee = checkUser(user); },
      getId: function () { return taskInput.id; },
      getName: function () { return taskInput.name; },
      getTaskDefinitionKey: function () { return taskInput.taskDefinitionKey; },
      getEventName: function () { return taskInput.eventName; },
      getProcessInstanceId: function () { return ids.processInstanceId; },
      getProcessDefinitionId: function () { return ids.processDefinitionId; },
      getExecutionId: function () { return ids.executionId; },
      getExecution: function () { return globalThis.execution; },
      id: taskInput.id,
      name: taskInput.name,
      taskDefinitionKey: taskInput.taskDefinitionKey,
      eventName: taskInput.eventName,
    };
    defineProperty(globalThis, 'task', { value: freeze(task), enumerable: false, writable: false, configurable: false });
  }
  // Camunda binds the variables as top-level names, read through to the variable (so a name shows a
  // value set with execution.setVariable); assigning to a name changes only the script's own copy.
  for (const name of keys(input.variables)) {
    if (name in globalThis) continue;
    defineProperty(globalThis, name, {
      get: function () { return assigned.has(name) ? assigned.get(name) : values.get(name); },
      set: function (value) { assigned.set(name, value); },
      enumerable: false,
      configurable: true,
    });
  }
  return function finish(result, withResult) {
    const parts = [];
    changes.forEach(function (text, name) { parts.push(stringify(name) + ':' + text); });
    const resultText = withResult ? toJsonText(result, 'the value of the script') : 'null';
    const taskText = taskState ? ',"task":' + stringify(taskState) : '';
    return '{"changes":{' + parts.join(',') + '},"result":' + resultText + taskText + '}';
  };
})`;
