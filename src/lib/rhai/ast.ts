/** Syntax tree of a Rhai script. Every node carries its 1-based source position. */
export type Node =
  | { kind: 'lit'; value: LiteralValue; line: number; col: number }
  | { kind: 'interp'; parts: Node[]; line: number; col: number }
  | { kind: 'var'; name: string; line: number; col: number }
  | { kind: 'global'; name: string; line: number; col: number }
  | { kind: 'this'; line: number; col: number }
  | { kind: 'array'; items: Node[]; line: number; col: number }
  | { kind: 'map'; entries: [string, Node][]; line: number; col: number }
  | { kind: 'unary'; op: string; operand: Node; line: number; col: number }
  | { kind: 'binary'; op: string; left: Node; right: Node; line: number; col: number }
  | {
      kind: 'range';
      from: Node | undefined;
      to: Node | undefined;
      inclusive: boolean;
      line: number;
      col: number;
    }
  | { kind: 'index'; target: Node; index: Node; safe: boolean; line: number; col: number }
  | { kind: 'prop'; target: Node; name: string; safe: boolean; line: number; col: number }
  | {
      kind: 'call';
      name: string;
      namespace: string[];
      args: Node[];
      bang: boolean;
      line: number;
      col: number;
    }
  | { kind: 'method'; target: Node; name: string; args: Node[]; safe: boolean; line: number; col: number }
  | { kind: 'closure'; fn: FunctionDefinition; line: number; col: number }
  | { kind: 'if'; condition: Node; then: Node; else: Node | undefined; line: number; col: number }
  | {
      kind: 'switch';
      subject: Node;
      cases: SwitchCase[];
      defaultCase: Node | undefined;
      line: number;
      col: number;
    }
  | { kind: 'block'; body: Node[]; line: number; col: number }
  | { kind: 'while'; condition: Node | undefined; body: Node; line: number; col: number }
  | { kind: 'do'; condition: Node; until: boolean; body: Node; line: number; col: number }
  | {
      kind: 'for';
      name: string;
      counter: string | undefined;
      iter: Node;
      body: Node;
      line: number;
      col: number;
    }
  | { kind: 'let'; name: string; operand: Node | undefined; isConst: boolean; line: number; col: number }
  | { kind: 'assign'; op: string; target: Node; operand: Node; line: number; col: number }
  | { kind: 'try'; body: Node; errVar: string | undefined; handler: Node; line: number; col: number }
  | { kind: 'throw'; operand: Node | undefined; line: number; col: number }
  | { kind: 'return'; operand: Node | undefined; line: number; col: number }
  | { kind: 'break'; operand: Node | undefined; line: number; col: number }
  | { kind: 'continue'; line: number; col: number }
  | { kind: 'import'; line: number; col: number }
  | { kind: 'nop'; line: number; col: number };

/** A literal constant. Floats are boxed so that they stay distinct from integers. */
export type LiteralValue =
  | { type: 'int'; value: number | bigint }
  | { type: 'float'; value: number }
  | { type: 'str'; value: string }
  | { type: 'char'; value: string }
  | { type: 'bool'; value: boolean }
  | { type: 'unit' };

/** One `switch` arm: literal values and/or integer ranges, an optional `if` condition. */
export interface SwitchCase {
  values: LiteralValue[];
  ranges: { from: number | bigint; to: number | bigint; inclusive: boolean }[];
  condition: Node | undefined;
  body: Node;
}

/** A script function (`fn`) or an anonymous function (closure). */
export interface FunctionDefinition {
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
  functions: FunctionDefinition[];
}
