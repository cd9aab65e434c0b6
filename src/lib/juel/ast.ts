/** The parsed form of an expression. Every node carries its 0-based offset in the whole text. */

/** A node of an eval expression (the inside of `${…}`). */
export type JuelNode =
  | {
      readonly kind: 'literal';
      readonly pos: number;
      readonly value: null | boolean | bigint | number | string;
    }
  | { readonly kind: 'identifier'; readonly pos: number; readonly name: string }
  /** `a.b` and `a[b]`: `key` is the expression inside the brackets, or a String literal for `.b`. */
  | { readonly kind: 'access'; readonly pos: number; readonly base: JuelNode; readonly key: JuelNode }
  | {
      readonly kind: 'method';
      readonly pos: number;
      readonly base: JuelNode;
      readonly name: string;
      readonly args: readonly JuelNode[];
    }
  | {
      readonly kind: 'function';
      readonly pos: number;
      readonly name: string;
      readonly args: readonly JuelNode[];
    }
  | { readonly kind: 'unary'; readonly pos: number; readonly op: UnaryOperator; readonly operand: JuelNode }
  | {
      readonly kind: 'binary';
      readonly pos: number;
      readonly op: BinaryOperator;
      readonly left: JuelNode;
      readonly right: JuelNode;
    }
  | {
      readonly kind: 'conditional';
      readonly pos: number;
      readonly test: JuelNode;
      readonly then: JuelNode;
      readonly otherwise: JuelNode;
    };

/** Unary operators, word forms folded into symbols (`not` is `!`). */
export type UnaryOperator = '-' | '!' | 'empty';

/** Binary operators, word forms folded into symbols (`div` is `/`, `mod` `%`, `eq` `==`, `and` `&&`…). */
export type BinaryOperator =
  '+' | '-' | '*' | '/' | '%' | '<' | '>' | '<=' | '>=' | '==' | '!=' | '&&' | '||';

/** A composite text: literal text and eval expressions, in order. */
export type JuelPart = string | { readonly node: JuelNode; readonly start: number };
