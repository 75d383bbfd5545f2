// expect: runtime
// timeout-ms: 2000
// output: Error: bad �
throw new Error('bad \udfff')
