// expect: timeout
// timeout-ms: 300
return [].concat({ length: 2 ** 40, [Symbol.isConcatSpreadable]: true } as any).length
