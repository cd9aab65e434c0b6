import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bpmnContentHash } from '../../../../src/workflow/engine/model/index.js';

void describe('bpmnContentHash', () => {
  const xml = '<definitions>\n  <process id="p"/>\n</definitions>\n';

  void test('is a hex sha256', () => {
    assert.match(bpmnContentHash(xml), /^[0-9a-f]{64}$/);
  });

  void test('ignores line endings, trailing whitespace, trailing blank lines and a BOM', () => {
    const variant = '\uFEFF<definitions>  \r\n  <process id="p"/>\t\r\n</definitions>\r\n\r\n';
    assert.equal(bpmnContentHash(variant), bpmnContentHash(xml));
    assert.equal(bpmnContentHash(xml.replace(/\n/g, '\r')), bpmnContentHash(xml));
  });

  void test('changes with the content, including leading indentation', () => {
    assert.notEqual(bpmnContentHash(xml.replace('id="p"', 'id="q"')), bpmnContentHash(xml));
    assert.notEqual(bpmnContentHash(xml.replace('  <process', '<process')), bpmnContentHash(xml));
  });
});
