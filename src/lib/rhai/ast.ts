/** Syntax tree of a Rhai script. Every node carries its 1-based source position. */
export type Node =
  | { k: 'lit'; value: LitValue; line: number; col: number }
  | { k: 'interp'; parts: Node[]; line: number; col: number }
  | { k: 'var'; name: string; line: number; col: number }
  | { k: 'global'; name: string; line: number; col: number }
  | { k: 'this'; line: number; col: number }
  | { k: 'array'; items: Node[]; line: number; col: number }
  | { k: 'map'; entries: [string, Node][]; line: number; col: number }
  | { k: 'unary'; op: string; e: Node; line: number; col: number }
  | { k: 'binary'; op: string; l: Node; r: Node; line: number; col: number }
  | { k: 'range'; from: Node | undefined; to: Node | undefined; incl: boolean; line: number; col: number }
  | { k: 'index'; obj: Node; idx: Node; safe: boolean; line: number; col: number }
  | { k: 'prop'; obj: Node; name: string; safe: boolean; line: number; col: number }
  | { k: 'call'; name: string; ns: string[]; args: Node[]; bang: boolean; line: number; col: number }
  | { k: 'method'; obj: Node; name: string; args: Node[]; safe: boolean; line: number; col: number }
  | { k: 'closure'; fn: FnDef; line: number; col: number }
  | { k: 'if'; cond: Node; then: Node; else: Node | undefined; line: number; col: number }
  | { k: 'switch'; subject: Node; cases: SwitchCase[]; def: Node | undefined; line: number; col: number }
  | { k: 'block'; body: Node[]; line: number; col: number }
  | { k: 'while'; cond: Node | undefined; body: Node; line: number; col: number }
  | { k: 'do'; cond: Node; until: boolean; body: Node; line: number; col: number }
  | { k: 'for'; name: string; counter: string | undefined; iter: Node; body: Node; line: number; col: number }
  | { k: 'let'; name: string; e: Node | undefined; isConst: boolean; line: number; col: number }
  | { k: 'assign'; op: string; target: Node; e: Node; line: number; col: number }
  | { k: 'try'; body: Node; errVar: string | undefined; handler: Node; line: number; col: number }
  | { k: 'throw'; e: Node | undefined; line: number; col: number }
  | { k: 'return'; e: Node | undefined; line: number; col: number }
  | { k: 'break'; e: Node | undefined; line: number; col: number }
  | { k: 'continue'; line: number; col: number }
  | { k: 'import'; line: number; col: number }
  | { k: 'nop'; line: number; col: number };

/** A literal constant. Floats are boxed so that they stay distinct from integers. */
export type LitValue =
  | { t: 'int'; v: number | bigint }
  | { t: 'float'; v: number }
  | { t: 'str'; v: string }
  | { t: 'char'; v: string }
  | { t: 'bool'; v: boolean }
  | { t: 'unit' };

/** One `switch` arm: literal values and/or integer ranges, an optional `if` condition. */
export interface SwitchCase {
  values: LitValue[];
  ranges: { from: number | bigint; to: number | bigint; incl: boolean }[];
  cond: Node | undefined;
  body: Node;
}

/** A script function (`fn`) or an anonymous function (closure). */
export interface FnDef {
  name: string;
  params: string[];
  body: Node;
  isPrivate: boolean;
  /** Closures only: names used in the body that come from the enclosing scopes. */
  captures: string[];
  line: number;
  col: number;
}

/** A parsed script: top-level statements and the script-defined functions. */
export interface Script {
  body: Node[];
  fns: FnDef[];
}
