import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileBpmn, DEFAULT_MAX_LENGTH } from '../../../../src/workflow/engine/model/index.js';
import { definitions } from './helpers.js';

const BPMN = 'xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"';

const billionLaughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<bpmn:definitions ${BPMN} id="d"><bpmn:process id="p" name="&lol9;"><bpmn:startEvent id="s"/></bpmn:process></bpmn:definitions>`;

const externalEntity = `<?xml version="1.0"?>
<!DOCTYPE definitions [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<bpmn:definitions ${BPMN} id="d"><bpmn:process id="p" name="&xxe;"><bpmn:startEvent id="s"/></bpmn:process></bpmn:definitions>`;

const DOCTYPE_PROBLEM = 'the document has a DOCTYPE; DOCTYPE and entity declarations are not accepted';

/** Runs a compile and returns its problems and how long it took. */
async function timed(xml: string, maxLength?: number) {
  const started = performance.now();
  const result = await compileBpmn(xml, maxLength === undefined ? {} : { maxLength });
  assert.ok(!result.ok, 'expected the document to be rejected');
  return { problems: result.problems, ms: performance.now() - started };
}

void describe('hostile and malformed input', () => {
  void test('billion laughs is rejected quickly, before parsing', async () => {
    const { problems, ms } = await timed(billionLaughs);
    assert.deepEqual(problems, [{ elementId: null, message: DOCTYPE_PROBLEM }]);
    assert.ok(ms < 1000, `took ${ms} ms`);
  });

  void test('an external entity document is rejected', async () => {
    const { problems } = await timed(externalEntity);
    assert.deepEqual(problems, [{ elementId: null, message: DOCTYPE_PROBLEM }]);
  });

  void test('a DOCTYPE after comments and in lower case is still found', async () => {
    const xml = `\uFEFF<?xml version="1.0"?><!-- a --><!doctype x SYSTEM "http://evil.test/x.dtd"><bpmn:definitions ${BPMN}/>`;
    assert.deepEqual((await timed(xml)).problems, [{ elementId: null, message: DOCTYPE_PROBLEM }]);
  });

  void test('an undeclared entity reference is not expanded', async () => {
    const xml = definitions('<bpmn:startEvent id="s" name="&xxe;"/>');
    const result = await compileBpmn(xml);
    assert.ok(result.ok);
    assert.equal(result.processes[0]?.elements.s?.name, '&xxe;');
  });

  for (const [name, xml, message] of [
    ['empty input', '', 'the document is empty'],
    ['whitespace only', ' \n\t ', 'the document is empty'],
    ['plain text', 'hello world', 'the document is not XML: it must start with "<"'],
    ['JSON', '{"definitions": []}', 'the document is not XML: it must start with "<"'],
    ['only a declaration', '<?xml version="1.0"?>', 'the document has no root element'],
    ['an unterminated comment', '<!-- never closed', 'the document is not XML: unterminated comment'],
    ['a non-BPMN root element', '<html><body/></html>', 'the root element is not <bpmn:definitions>'],
  ] as const) {
    void test(`${name} is a clear problem, not an exception`, async () => {
      assert.deepEqual((await timed(xml)).problems, [{ elementId: null, message }]);
    });
  }

  void test('truncated XML is reported with its position', async () => {
    const { problems } = await timed(`<bpmn:definitions ${BPMN} id="d"><bpmn:process id="p">`);
    assert.equal(problems.length, 1);
    assert.match(
      problems[0]?.message ?? '',
      /^the document is not well-formed XML: unexpected end of file \(line 1, column \d+\)$/,
    );
  });

  void test('a 10 MB document of junk is rejected by size without being parsed', async () => {
    const junk = junkText(10 * 1024 * 1024);
    const { problems, ms } = await timed(junk);
    assert.deepEqual(problems, [
      {
        elementId: null,
        message: `the document is ${junk.length} characters long; the limit is ${DEFAULT_MAX_LENGTH}`,
      },
    ]);
    assert.ok(ms < 1000, `took ${ms} ms`);
  });

  void test('10 MB of junk inside a BPMN root is rejected by the parser without hanging', async () => {
    const xml = `<bpmn:definitions ${BPMN} id="d">` + junkText(10 * 1024 * 1024);
    const { problems, ms } = await timed(xml, 64 * 1024 * 1024);
    assert.equal(problems.length, 1);
    assert.match(problems[0]?.message ?? '', /^the document is not well-formed XML/);
    assert.ok(ms < 10_000, `took ${ms} ms`);
  });

  void test('a million unclosed nested elements are rejected without hanging', async () => {
    const xml = `<bpmn:definitions ${BPMN} id="d"><bpmn:process id="p">` + '<a>'.repeat(1_000_000);
    const { problems, ms } = await timed(xml);
    assert.match(problems[0]?.message ?? '', /^the document is not well-formed XML: unexpected end of file/);
    assert.ok(ms < 10_000, `took ${ms} ms`);
  });
});

// Deterministic pseudo-random markup-ish junk, so a failure can be reproduced.
function junkText(length: number): string {
  const alphabet = '<>/="abc &;!?\n';
  const chars = new Array<string>(length);
  let seed = 42;
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    chars[i] = alphabet[seed % alphabet.length] ?? 'x';
  }
  return chars.join('');
}
