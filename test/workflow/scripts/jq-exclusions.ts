import type { JqTestCase } from './jq-test-file.js';

/**
 * A kind of jq test case that jq-wasm inside the script sandbox cannot run, with the reason
 * (docs/workflow/scripts.md, "jq conformance: what does not run"). A rule names a feature of the
 * program or of the failure, never a single case; an excluded case counts neither as passed nor as
 * failed, and a case a rule names that passes counts as passed.
 */
export interface JqExclusion {
  name: string;
  reason: string;
  /** Whether the rule explains this failing case (`why` is the conformance test's failure text). */
  explains(testCase: JqTestCase, why: string): boolean;
}

// Deepest nesting a case builds with `range(N)`; jq's own depth limits are 10,000.
function nestingDepth(program: string): number {
  let deepest = 0;
  for (const m of program.matchAll(/range\((\d+)\)/g)) deepest = Math.max(deepest, Number(m[1]));
  return deepest;
}

/** The documented exclusions, in the order the doc lists them. */
export const jqExclusions: readonly JqExclusion[] = [
  {
    name: 'modules',
    reason:
      "imports a module from jq's tests/modules directory; a script has no file system and no module search path (`-L`), and the module files are not part of the conformance material",
    explains: (testCase) => /\b(import|include)\s+"|\bmodulemeta\b/.test(testCase.program),
  },
  {
    name: 'environment',
    reason:
      "reads the PAGER variable jq's test runner sets; a script sees only the WebAssembly instance's synthetic environment ($ENV has USER=web_user, PATH=/ …), never the host's",
    explains: (testCase) => /\$ENV\b|\benv\b/.test(testCase.program),
  },
  {
    name: 'deep nesting',
    reason:
      "nests values 9,999–10,001 levels deep to test jq's depth limits; jq's recursive C code runs on the WebAssembly instance's small stack, which overflows (the instance traps and is replaced) long before jq's own 10,000-level checks answer",
    explains: (testCase, why) => why.includes('jq aborted') && nestingDepth(testCase.program) >= 9999,
  },
];

/** The first rule that explains a failing case, if any. */
export function exclusionFor(testCase: JqTestCase, why: string): JqExclusion | undefined {
  return jqExclusions.find((rule) => rule.explains(testCase, why));
}
