import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

/** A process `tick` whose only start is a timer; `label` makes each deployment a new version. */
function tickXml(timer: string, label: string, processKey = 'tick'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="Defs" targetNamespace="urn:weft:test">
  <bpmn:process id="${processKey}" name="Tick ${label}" isExecutable="true">
    <bpmn:startEvent id="clock"><bpmn:timerEventDefinition>${timer}</bpmn:timerEventDefinition></bpmn:startEvent>
    <bpmn:endEvent id="done" />
    <bpmn:sequenceFlow id="f1" sourceRef="clock" targetRef="done" />
  </bpmn:process>
</bpmn:definitions>`;
}

describe('timer start events', () => {
  let f: EngineFixture;
  let now = new Date('2026-11-21T10:00:00Z');
  const moveClock = (ms: number) => (now = new Date(now.getTime() + ms));
  const HOUR = 3_600_000;
  before(async () => {
    f = await createEngineFixture({ WORKFLOW_JWT_TTL_SECONDS: '864000' }, { now: () => now });
  });
  after(() => f.close());

  const deployXml = async (xml: string) =>
    f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: { org_id: f.orgId, process_group_id: f.groupId, xml },
    });
  const setDisabled = async (id: string, disabled: boolean) => {
    const response = await f.workflow.request({
      method: 'PATCH',
      url: `/api/v1/deployments/${id}/disabled`,
      token: f.tokens.developer,
      body: { disabled },
    });
    assert.equal(response.statusCode, 200, response.body);
  };
  const startJobs = async (processKey: string) =>
    (
      await f.workflow.database.pool.query<{ definition_id: string; element_id: string; due_at: Date }>(
        `SELECT t.definition_id, t.element_id, t.due_at FROM timer_jobs t
         JOIN process_definitions d ON d.id = t.definition_id
         WHERE t.process_instance_id IS NULL AND d.process_key = $1 ORDER BY t.due_at`,
        [processKey],
      )
    ).rows;
  const instancesOf = async (processKey: string) =>
    (
      await f.workflow.database.pool.query<{ definition_id: string; state: string }>(
        'SELECT definition_id, state FROM process_instances WHERE process_key = $1 ORDER BY counter',
        [processKey],
      )
    ).rows;

  test('deploying arms one job per version; each firing starts an instance and a cycle re-arms', async () => {
    const v1 = await deployXml(tickXml('<bpmn:timeCycle>R/PT1H</bpmn:timeCycle>', 'v1'));
    assert.equal(v1.statusCode, 201, v1.body);
    const v1Id = (v1.json() as { id: string }).id;
    assert.deepEqual(await startJobs('tick'), [
      { definition_id: v1Id, element_id: 'clock', due_at: new Date('2026-11-21T11:00:00Z') },
    ]);
    moveClock(HOUR - 1_000);
    await f.workflow.service.fireDueTimers();
    assert.deepEqual(await instancesOf('tick'), [], 'not due yet');
    moveClock(1_000);
    await f.workflow.service.fireDueTimers();
    assert.deepEqual(await instancesOf('tick'), [{ definition_id: v1Id, state: 'completed' }]);
    assert.deepEqual(
      (await startJobs('tick')).map((job) => job.due_at),
      [new Date('2026-11-21T12:00:00Z')],
      'the cycle re-armed for the next hour',
    );
    const history = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/process-instances?org_id=${f.orgId}&process_key=tick`,
        token: f.tokens.reader,
      })
    ).json() as { id: string }[];
    assert.equal(history.length, 1);
  });

  test('a new version replaces the previous version’s timer start; only the new one fires', async () => {
    const v2 = await deployXml(tickXml('<bpmn:timeCycle>R/PT2H</bpmn:timeCycle>', 'v2'));
    assert.equal(v2.statusCode, 201, v2.body);
    const v2Id = (v2.json() as { id: string }).id;
    const jobs = await startJobs('tick');
    assert.deepEqual(
      jobs.map((job) => job.definition_id),
      [v2Id],
      'v1’s job is gone, v2’s is armed',
    );
    const before = (await instancesOf('tick')).length;
    moveClock(2 * HOUR);
    await f.workflow.service.fireDueTimers();
    const after = await instancesOf('tick');
    assert.equal(after.length, before + 1);
    assert.equal(after.at(-1)?.definition_id, v2Id);
  });

  test('disabling cancels the timer start, enabling re-arms it; it fires only while enabled', async () => {
    const deployed = await deployXml(tickXml('<bpmn:timeCycle>R/PT1H</bpmn:timeCycle>', 'toggle', 'toggle'));
    const id = (deployed.json() as { id: string }).id;
    assert.equal((await startJobs('toggle')).length, 1);
    await setDisabled(id, true);
    assert.deepEqual(await startJobs('toggle'), [], 'disabling cancelled the job');
    moveClock(5 * HOUR);
    await f.workflow.service.fireDueTimers();
    assert.deepEqual(await instancesOf('toggle'), [], 'nothing starts while disabled');
    await setDisabled(id, false);
    const rearmed = await startJobs('toggle');
    assert.deepEqual(
      rearmed.map((job) => job.due_at),
      [new Date(now.getTime() + HOUR)],
      'enabling armed it from now',
    );
    await setDisabled(id, false);
    assert.equal((await startJobs('toggle')).length, 1, 'enabling twice arms once');
    moveClock(HOUR);
    await f.workflow.service.fireDueTimers();
    assert.deepEqual(await instancesOf('toggle'), [{ definition_id: id, state: 'completed' }]);
  });

  test('enabling a disabled older version re-arms its own timer starts; enabling an enabled one arms nothing', async () => {
    const first = await deployXml(tickXml('<bpmn:timeCycle>R/PT1H</bpmn:timeCycle>', 'old-1', 'older'));
    const firstId = (first.json() as { id: string }).id;
    const second = await deployXml(tickXml('<bpmn:timeCycle>R/PT1H</bpmn:timeCycle>', 'old-2', 'older'));
    const secondId = (second.json() as { id: string }).id;
    const armed = async () => (await startJobs('older')).map((job) => job.definition_id).sort();
    assert.deepEqual(await armed(), [secondId], 'the new version replaced the old one’s timer start');
    await setDisabled(firstId, false);
    assert.deepEqual(await armed(), [secondId], 'enabling an enabled version changes nothing');
    await setDisabled(firstId, true);
    await setDisabled(firstId, false);
    assert.deepEqual(
      await armed(),
      [firstId, secondId].sort(),
      'the enabled version is armed, not only the latest',
    );
    await setDisabled(secondId, true);
    assert.deepEqual(await armed(), [firstId]);
    const before = (await instancesOf('older')).length;
    moveClock(HOUR);
    await f.workflow.service.fireDueTimers();
    const started = (await instancesOf('older')).slice(before);
    assert.deepEqual(
      started.map((instance) => instance.definition_id),
      [firstId],
      'the re-enabled older version starts instances of itself',
    );
  });

  test('a timer start whose version was disabled after the claim is skipped and dropped', async () => {
    const deployed = await deployXml(tickXml('<bpmn:timeDuration>PT1H</bpmn:timeDuration>', 'race', 'race'));
    const id = (deployed.json() as { id: string }).id;
    // The flag alone, as if the disable had committed between the claim and the firing.
    await f.workflow.database.pool.query('UPDATE process_definitions SET disabled = true WHERE id = $1', [
      id,
    ]);
    moveClock(HOUR);
    await f.workflow.service.fireDueTimers();
    assert.deepEqual(await instancesOf('race'), []);
    assert.deepEqual(await startJobs('race'), []);
  });

  test('FEEL timers (= prefix) are evaluated at deploy; timeDate fires once at its instant', async () => {
    const at = '2026-11-22T18:00:00Z';
    const deployed = await deployXml(
      tickXml(`<bpmn:timeDate>= date and time("${at}")</bpmn:timeDate>`, 'feel', 'feel'),
    );
    assert.equal(deployed.statusCode, 201, deployed.body);
    assert.deepEqual(
      (await startJobs('feel')).map((job) => job.due_at),
      [new Date(at)],
    );
    now = new Date('2026-11-22T18:00:01Z');
    await f.workflow.service.fireDueTimers();
    assert.equal((await instancesOf('feel')).length, 1);
    assert.deepEqual(await startJobs('feel'), [], 'a date fires once');
  });

  test('deploy rejects invalid timer expressions with the element id', async () => {
    const cases = [
      ['<bpmn:timeDuration>5 minutes</bpmn:timeDuration>', /invalid timeDuration '5 minutes'/],
      ['<bpmn:timeCycle>R/PT0S</bpmn:timeCycle>', /invalid timeCycle 'R\/PT0S'/],
      ['<bpmn:timeCycle>61 * * * *</bpmn:timeCycle>', /invalid timeCycle '61 \* \* \* \*'/],
      ['<bpmn:timeDate>= someVariable</bpmn:timeDate>', /timer start event 'clock': invalid timeDate 'null'/],
      ['<bpmn:timeDuration>= "soon"</bpmn:timeDuration>', /invalid timeDuration 'soon'/],
    ] as const;
    for (const [timer, message] of cases) {
      const response = await deployXml(tickXml(timer, 'bad', 'bad'));
      assert.equal(response.statusCode, 400, `${timer}: ${response.body}`);
      const body = response.json() as {
        code: string;
        details: { errors: { element_id: string; message: string }[] };
      };
      assert.equal(body.code, 'U400');
      const [error] = body.details.errors;
      assert.equal(error?.element_id, 'clock', timer);
      assert.match(error?.message ?? '', message);
    }
  });

  test('cron timer starts fire at each matching minute', async () => {
    now = new Date('2026-11-23T08:59:30Z'); // a Monday
    const deployed = await deployXml(
      tickXml('<bpmn:timeCycle>0 9 * * MON-FRI</bpmn:timeCycle>', 'cron', 'cron'),
    );
    assert.equal(deployed.statusCode, 201, deployed.body);
    assert.deepEqual(
      (await startJobs('cron')).map((job) => job.due_at),
      [new Date('2026-11-23T09:00:00Z')],
    );
    now = new Date('2026-11-23T09:00:00Z');
    await f.workflow.service.fireDueTimers();
    assert.equal((await instancesOf('cron')).length, 1);
    assert.deepEqual(
      (await startJobs('cron')).map((job) => job.due_at),
      [new Date('2026-11-24T09:00:00Z')],
    );
  });
});
