// Entry point of a script sandbox worker thread: runs one step per message with the in-process executor.
import { parentPort, workerData } from 'node:worker_threads';
import type { SandboxReply, SandboxRequest, SandboxWorkerData } from './sandbox-protocol.js';
import { createInProcessExecutor, threadJqEngine } from './step-executor.js';

const port = parentPort;
if (port === null) throw new Error('sandbox-worker.js must run in a worker thread');
const data = workerData as SandboxWorkerData;
const executor = createInProcessExecutor(data.limits);
const reply = (message: SandboxReply): void => port.postMessage(message);

try {
  // Load and run jq once before saying ready, so the first step's time limit does not pay for it.
  await (await threadJqEngine()).run('.', null);
  port.on('message', (request: SandboxRequest) => {
    void executor.execute(request.step, request.variables).then((outcome) => {
      reply({ kind: 'outcome', id: request.id, outcome });
    });
  });
  reply({ kind: 'ready' });
} catch (e) {
  reply({ kind: 'failed', message: e instanceof Error ? e.message : String(e) });
}
