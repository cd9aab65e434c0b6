/**
 * The boxed expressions DMN 1.4 and 1.5 added (conditional, filter, for, some, every), as moddle type
 * descriptors to add to dmn-moddle's DMN 1.3 package, which does not know them. Their shape follows
 * the DMN 1.5 XSD: each part (`if`, `in`, `return`…) is a child expression element holding one
 * expression; the iterators name their variable in `iteratorVariable`.
 */
export const DMN15_BOXED_TYPES = [
  {
    name: 'ChildExpression',
    properties: [
      { name: 'id', isAttr: true, type: 'String' },
      { name: 'value', type: 'Expression' },
    ],
  },
  {
    name: 'Conditional',
    superClass: ['Expression'],
    properties: [
      { name: 'if', type: 'ChildExpression', xml: { serialize: 'property' } },
      { name: 'then', type: 'ChildExpression', xml: { serialize: 'property' } },
      { name: 'else', type: 'ChildExpression', xml: { serialize: 'property' } },
    ],
  },
  {
    name: 'Filter',
    superClass: ['Expression'],
    properties: [
      { name: 'in', type: 'ChildExpression', xml: { serialize: 'property' } },
      { name: 'match', type: 'ChildExpression', xml: { serialize: 'property' } },
    ],
  },
  {
    name: 'Iterator',
    isAbstract: true,
    superClass: ['Expression'],
    properties: [
      { name: 'iteratorVariable', isAttr: true, type: 'String' },
      { name: 'in', type: 'ChildExpression', xml: { serialize: 'property' } },
    ],
  },
  {
    name: 'For',
    superClass: ['Iterator'],
    properties: [{ name: 'return', type: 'ChildExpression', xml: { serialize: 'property' } }],
  },
  {
    name: 'Quantified',
    isAbstract: true,
    superClass: ['Iterator'],
    properties: [{ name: 'satisfies', type: 'ChildExpression', xml: { serialize: 'property' } }],
  },
  { name: 'Some', superClass: ['Quantified'] },
  { name: 'Every', superClass: ['Quantified'] },
];
