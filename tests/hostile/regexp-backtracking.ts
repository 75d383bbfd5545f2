// expect: timeout
// timeout-ms: 300
return /(a+)+$/.test('a'.repeat(40) + 'b')
