// What the tests use of camunda-external-task-client-js, which ships no types.
declare module 'camunda-external-task-client-js' {
  export interface TypedValue {
    value: unknown;
    type: string;
    valueInfo?: Record<string, unknown>;
  }

  export class Variables {
    constructor();
    get(name: string): unknown;
    getTyped(name: string): TypedValue | null;
    getAll(): Record<string, unknown>;
    set(name: string, value: unknown): this;
    setTyped(name: string, typed: TypedValue): this;
  }

  export interface Task {
    id: string;
    topicName: string;
    activityId: string;
    businessKey: string | null;
    processInstanceId: string;
    retries: number | null;
    tenantId: string | null;
    lockExpirationTime: string;
    variables: Variables;
  }

  export interface TaskService {
    complete(task: Task, variables?: Variables, localVariables?: Variables): Promise<void>;
    handleFailure(
      task: Task,
      options: { errorMessage?: string; errorDetails?: string; retries?: number; retryTimeout?: number },
    ): Promise<void>;
    handleBpmnError(
      task: Task,
      errorCode: string,
      errorMessage?: string,
      variables?: Variables,
    ): Promise<void>;
    extendLock(task: Task, newDuration: number): Promise<void>;
    unlock(task: Task): Promise<void>;
  }

  export type Interceptor = (config: Record<string, unknown>) => Record<string, unknown>;

  export class BasicAuthInterceptor {
    constructor(options: { username: string; password: string });
  }

  export class Client {
    constructor(options: {
      baseUrl: string;
      workerId?: string;
      maxTasks?: number;
      interval?: number;
      lockDuration?: number;
      asyncResponseTimeout?: number;
      usePriority?: boolean;
      maxParallelExecutions?: number;
      autoPoll?: boolean;
      interceptors?: Interceptor | Interceptor[] | BasicAuthInterceptor;
      use?: unknown;
    });
    subscribe(
      topic: string,
      options: Record<string, unknown>,
      handler: (args: { task: Task; taskService: TaskService }) => Promise<void>,
    ): { unsubscribe(): void };
    on(event: string, listener: (...args: unknown[]) => void): this;
    start(): void;
    stop(): void;
  }
}
